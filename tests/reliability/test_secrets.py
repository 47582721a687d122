"""Issue 14, secrets: masked in every report and receipt by default, named detectors."""

from __future__ import annotations

import html
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxkeep.base.secrets import (
    DETECTORS,
    find_secrets,
    is_already_redacted,
    is_code_reference,
    is_low_entropy,
    is_path,
    is_placeholder,
    mask_secrets,
)
from ctxkeep.report.html import embedded_json
from tests.reliability.test_secrets_in_reports import OPENAI_KEY

# detector -> a text holding one secret of its kind, and the secret
CASES = {
    "private-key": (
        "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx5Yd\nq3Jk+/w==\n"
        "-----END RSA PRIVATE KEY-----\ndone",
        "MIIEowIBAAKCAQEAx5Yd",
    ),
    "aws-access-key-id": ("aws id AKIAQ7VL2MX9KR4TW8PZ in env", "AKIAQ7VL2MX9KR4TW8PZ"),
    "github-token": ("GH_TOKEN ghp_Q7vL2mX9kR4tW8pZ3nB6yC1dF5gH0jK8aS2d", "ghp_Q7vL2mX9kR4tW8pZ"),
    "anthropic-api-key": (
        "ANTHROPIC sk-ant-api03-Q7vL2mX9kR4tW8pZ3nB6yC1dF5gH0jK-x",
        "sk-ant-api03-Q7vL2mX9",
    ),
    "openai-api-key": (f"use {OPENAI_KEY} for it", OPENAI_KEY),
    "slack-token": ("slack xoxb-2931-Q7vL2mX9kR4tW8pZ here", "xoxb-2931-Q7vL2mX9kR4tW8pZ"),
    "stripe-key": ("stripe sk_live_Q7vL2mX9kR4tW8pZ3nB6", "sk_live_Q7vL2mX9kR4tW8pZ3nB6"),
    "google-api-key": (
        "maps AIzaSyQ7vL2mX9kR4tW8pZ3nB6yC1dF5gH0jK8a.",
        "AIzaSyQ7vL2mX9kR4tW8pZ3nB6yC1dF5gH0jK8a",
    ),
    "json-web-token": (
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.Q7vL2mX9kR4tW8pZ3nB6 ok",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
    ),
    "bearer-token": (
        'curl -H "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0"',
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ),
    "url-password": ("DATABASE_URL=postgres://app:s3cr3tP4ss@db:5432/app", "s3cr3tP4ss"),
    "password-assignment": ('config: password="hunter2!x"', "hunter2!x"),
    "high-entropy-keyword-value": (
        "client_secret: Zx8Kq2LmP9vRt4Ws7YbN3cHd",
        "Zx8Kq2LmP9vRt4Ws7YbN3cHd",
    ),
}


def test_every_detector_has_a_case() -> None:
    assert {d.name for d in DETECTORS} == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_detector_masks_its_secret_raw_in_json_and_in_html(name: str) -> None:
    text, secret = CASES[name]
    hits = find_secrets(text)
    assert [h.detector for h in hits] == [name]
    for shown, unescape in (
        (text, str),
        (json.dumps(text), json.loads),
        (json.dumps(text, ensure_ascii=False), json.loads),
        (html.escape(text, quote=True), html.unescape),
        (embedded_json(text), json.loads),
    ):
        masked, count = mask_secrets(shown)
        assert count == 1, shown
        assert secret not in masked
        assert f"REDACTED:{name}" in unescape(masked)  # still valid JSON / HTML text


@pytest.mark.parametrize(
    ("predicate", "case"),
    [
        (is_already_redacted, "REDACTED.REDACTED.REDACTED"),  # a real Claude Code log
        (is_already_redacted, "REDACTED:openai-api-key"),  # masking twice changes nothing
        (is_placeholder, "${DB_PASSWORD}"),
        (is_placeholder, "<your-token>"),
        (is_code_reference, "request.form"),
        (is_path, "/home/maya/.config/gh/token.json"),
        (is_low_entropy, "aaaaaaaaaaaaaaaaaaaaaa"),
        (is_low_entropy, "sk-learn-tutorial-notebooks"),
        (is_code_reference, "secret_key_path_for_tests"),
    ],
)
def test_each_filter_names_its_real_case(predicate: object, case: str) -> None:
    assert callable(predicate)
    assert predicate(case)


@pytest.mark.parametrize(
    "text",
    [
        "https://cursor.com/open?REDACTED.REDACTED.REDACTED",
        "password = request.form['password']",
        "export OPENAI_API_KEY=$OPENAI_API_KEY",
        "token_file=/home/maya/.config/gh/token.json",
        "max_tokens: 4096, tokens_before: 180000",
        "the sk-learn docs; a bearer of bad news",
        "错误信息必须保留原始行号",
    ],
)
def test_ordinary_session_text_is_left_alone(text: str) -> None:
    assert mask_secrets(text) == (text, 0)


_SECRET_TEXTS = st.sampled_from([text for text, _ in CASES.values()])


@given(st.text(max_size=30), _SECRET_TEXTS, st.text(max_size=30))
def test_masked_json_and_html_stay_valid(before: str, secret_text: str, after: str) -> None:
    text = before + " " + secret_text + " " + after
    for ensure_ascii in (True, False):
        masked, _ = mask_secrets(json.dumps({"t": text}, ensure_ascii=ensure_ascii))
        json.loads(masked)
    masked, _ = mask_secrets(embedded_json({"t": text}))
    json.loads(masked)
