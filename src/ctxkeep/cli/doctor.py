"""``ctxkeep doctor``: is the scoring endpoint usable, and what configuration is in effect."""

from __future__ import annotations

import os
import sys

import click

from ctxkeep.cli import exit_codes


def mask_key(key: str | None) -> str:
    """Enough of a key to tell which one it is, never enough to use it (and nothing of a
    key that is no valid header value: it says why instead)."""
    from ctxkeep.scorers._transport import bad_key_reason

    if not key:
        return "not set"
    bad = bad_key_reason(key)
    if bad is not None:
        return f"INVALID ({len(key)} characters): {bad}"
    if len(key) < 16:
        return f"set ({len(key)} characters)"
    return f"{key[:3]}…{key[-4:]} ({len(key)} characters)"


@click.command("doctor")
@click.option("--probe", is_flag=True, help="Send one real score request.")
@click.option(
    "--scorer",
    type=click.Choice(["http", "openai-chat"]),
    default="http",
    show_default=True,
    help="Which remote scorer to check.",
)
@click.option("--url", default=None, help="Endpoint [env CTXKEEP_SCORE_URL].")
@click.option("--model", default=None, help="Model for openai-chat [env CTXKEEP_SCORE_MODEL].")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds [env CTXKEEP_SCORE_TIMEOUT, default 10].",
)
def doctor_command(
    probe: bool, scorer: str, url: str | None, model: str | None, timeout: float | None
) -> None:
    """Show the effective scoring configuration (the key masked), whether the endpoint
    answers, and with --probe the score it gives one test message. Exits 1 when the
    endpoint cannot be reached or the probe fails.
    """
    from ctxkeep.base.paths import ctxkeep_home
    from ctxkeep.base.tokens import token_method
    from ctxkeep.scorers import Candidate, ScoreRequest, ScorerError, ScorerOptions, make_scorer
    from ctxkeep.scorers._transport import reachable, safe_url
    from ctxkeep.scorers.openai_chat import chat_endpoint

    options = ScorerOptions.from_env(url=url, model=model, timeout=timeout)
    endpoint = None
    if options.url:
        endpoint = chat_endpoint(options.url) if scorer == "openai-chat" else options.url
    click.echo(f"scorer:    {scorer}")
    click.echo(f"endpoint:  {safe_url(endpoint) if endpoint else 'not set (CTXKEEP_SCORE_URL)'}")
    click.echo(f"key:       {mask_key(options.key)}")
    if scorer == "openai-chat":
        click.echo(f"model:     {options.model or 'default'}")
    click.echo(f"timeout:   {options.timeout:g} s")
    click.echo(f"tokens:    {token_method()}")
    click.echo(
        f"home:      {ctxkeep_home()}"
        + (" (CTXKEEP_HOME)" if os.environ.get("CTXKEEP_HOME") else "")
    )
    ok = True
    if endpoint is None:
        click.echo("reachable: no endpoint configured; the lexical scorer works offline")
        ok = not probe
    else:
        answered, said = reachable(endpoint, timeout=options.timeout)
        click.echo(f"reachable: {'yes' if answered else 'NO'}: {said}")
        ok = answered
    if scorer == "http" and not options.key:
        click.echo(
            "warning:   the http scorer needs CTXKEEP_SCORE_KEY; without it every run "
            "is scored by recency"
        )
        ok = ok and not probe
    if probe and endpoint is not None:
        request = ScoreRequest(
            "ctxkeep doctor probe: is this message about a failing test?",
            "Task: fix the failing test in tests/test_parser.py",
            (Candidate(0, "The test tests/test_parser.py fails with KeyError: 'port'.", 1),),
        )
        try:
            score = make_scorer(scorer, options).score(request)[0]
        except ScorerError as exc:
            click.echo(f"probe:     FAILED: {exc}")
            ok = False
        else:
            click.echo(f"probe:     score {score.value:.3f}, confidence {score.confidence:.2f}")
    sys.exit(exit_codes.OK if ok else exit_codes.FINDINGS)
