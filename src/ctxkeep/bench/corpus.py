"""A deterministic generator of long coding-agent sessions, with the ground truth planted.

Each session is an OpenAI-style chat message list (``system``, ``user``, ``assistant`` with
``tool_calls``, ``tool`` results) of exactly the requested length, in English or Chinese:
a task with standing constraints stated early (do not change the public API of X, only
edit file Y, never run Z; 不要修改公共接口, 必须保留行号), then rounds of real-looking work —
files read, tests run with tracebacks, grep hits, package versions and ports in tool
output, edits, decisions — with filler chatter ("ok sounds good", "谢谢") in between.

Everything comes from ``random.Random(seed)``: no clock, no global state, so one seed
always gives the same bytes (:func:`session_bytes`). The generator records what it
planted — every standing constraint (with the message it is in) and every identifier
first introduced through tool output — so the benchmark needs no hand labelling; the
tests cross-check the plants against ctxkeep's own extractors.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

__all__ = [
    "CORPORA",
    "GeneratedSession",
    "Language",
    "PlantedConstraint",
    "PlantedIdentifier",
    "SessionSpec",
    "corpus",
    "generate_session",
    "harness_summary",
    "session_bytes",
]

Language = Literal["en", "zh"]
Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SessionSpec:
    """What to generate: one seed, one language, an exact message count."""

    seed: int
    language: Language
    messages: int

    @property
    def name(self) -> str:
        return f"{self.language}-{self.messages}-s{self.seed}"


@dataclass(frozen=True, slots=True)
class PlantedConstraint:
    """A standing constraint the user stated: its exact text, the message that holds it,
    and its entity (the object it is about: the class, file, command), which any
    rewording that keeps the constraint must still name."""

    text: str
    message_index: int
    entity: str


@dataclass(frozen=True, slots=True)
class PlantedIdentifier:
    """An identifier first introduced through tool output (``kind``: path, symbol,
    version, port, env), and the index of that tool message."""

    text: str
    kind: str
    message_index: int


@dataclass(frozen=True, slots=True)
class GeneratedSession:
    """One generated session and what was planted in it."""

    spec: SessionSpec
    task: str
    messages: tuple[Message, ...]
    constraints: tuple[PlantedConstraint, ...]
    identifiers: tuple[PlantedIdentifier, ...]


CORPORA: dict[str, tuple[SessionSpec, ...]] = {
    # The default: small enough for the test suite, still 50 to 400 messages, both languages.
    "small": tuple(
        SessionSpec(seed, lang, n)
        for seed, n in ((1, 50), (2, 150), (3, 400))
        for lang in ("en", "zh")
    ),
    # ``--corpus large``: every size the issue names, one seed each, both languages.
    "large": tuple(
        SessionSpec(100 + rank, lang, n)
        for rank, n in enumerate((50, 200, 500, 1000, 2000))
        for lang in ("en", "zh")
    ),
    # ``--corpus xl``: the same sizes with three seeds each (the embedding rows take the
    # better part of an hour on 2 cores).
    "xl": tuple(
        SessionSpec(seed * 100 + rank, lang, n)
        for rank, n in enumerate((50, 200, 500, 1000, 2000))
        for seed in (1, 2, 3)
        for lang in ("en", "zh")
    ),
}


def corpus(name: str) -> tuple[SessionSpec, ...]:
    """The specs of a named corpus (``small`` or ``large``); KeyError names the choices."""
    try:
        return CORPORA[name]
    except KeyError:
        raise KeyError(f"unknown corpus {name!r}; known: {', '.join(CORPORA)}") from None


# ---------------------------------------------------------------------------------------
# Vocabulary. Each session draws its project from these pools, so sessions differ in
# every identifier while the shape of the work stays realistic.

_PACKAGES = ("netkit", "ledgerd", "parsekit", "imgpipe", "authsvc", "tilecache", "quotad")
_MODULES = (
    "retry",
    "pool",
    "config",
    "parser",
    "tokens",
    "cache",
    "server",
    "client",
    "schema",
    "errors",
    "storage",
    "router",
    "limits",
    "session",
    "codec",
    "metrics",
)
_CLASSES = (
    "RetryPolicy",
    "ConnectionPool",
    "ConfigLoader",
    "TokenStream",
    "CacheEntry",
    "RequestRouter",
    "SchemaValidator",
    "ErrorReporter",
    "SessionStore",
    "RateLimiter",
    "FrameDecoder",
    "MetricSink",
    "QuotaLedger",
    "TileIndex",
)
_FUNCTIONS = (
    "parse_header",
    "load_config",
    "backoff_delay",
    "flush_cache",
    "validate_schema",
    "render_error",
    "open_session",
    "acquire_slot",
    "decode_frame",
    "emit_metric",
    "resolve_route",
    "compact_index",
    "read_chunk",
    "charge_quota",
)
_LIBRARIES = ("httpx", "pydantic", "sqlalchemy", "redis", "uvicorn", "attrs", "orjson", "anyio")
_DANGEROUS = (
    "make deploy",
    "git push --force",
    "alembic downgrade base",
    "terraform apply",
    "kubectl delete namespace staging",
    "rm -rf build/cache",
)
_ERRORS = (
    ("TimeoutError", "read timed out after {n} ms", "读取超时，耗时 {n} 毫秒"),
    ("KeyError", "'{sym}'", "'{sym}'"),
    ("ValueError", "invalid literal for int() with base 10: '{n}x'", "无效的整数字面量 '{n}x'"),
    ("AssertionError", "assert {n} == {m}", "assert {n} == {m}"),
    ("ConnectionRefusedError", "[Errno 111] Connection refused", "[Errno 111] 连接被拒绝"),
)

_FILLER_EN = (
    "ok sounds good",
    "thanks",
    "great, go ahead",
    "ok",
    "perfect",
    "sure",
    "thanks!",
    "looks good to me",
    "nice",
    "yep, continue",
)
_FILLER_ZH = ("好的", "谢谢", "可以，继续", "行", "没问题", "好，继续吧", "嗯", "不错")
_ACK_EN = (
    "Got it.",
    "Understood, continuing.",
    "Thanks — moving on.",
    "Will do.",
    "On it.",
)
_ACK_ZH = ("收到。", "明白，继续。", "好的，接着做。", "马上处理。")


@dataclass(frozen=True, slots=True)
class _Project:
    package: str
    modules: tuple[str, ...]
    classes: tuple[str, ...]
    functions: tuple[str, ...]
    libraries: tuple[tuple[str, str], ...]
    port: int
    env_var: str
    branch: str
    dangerous: str

    def path(self, module: str) -> str:
        return f"src/{self.package}/{module}.py"

    def test_path(self, module: str) -> str:
        return f"tests/test_{module}.py"


def _project(rng: random.Random) -> _Project:
    package = rng.choice(_PACKAGES)
    libs = rng.sample(_LIBRARIES, 3)
    return _Project(
        package=package,
        modules=tuple(rng.sample(_MODULES, 5)),
        classes=tuple(rng.sample(_CLASSES, 4)),
        functions=tuple(rng.sample(_FUNCTIONS, 6)),
        libraries=tuple(
            (lib, f"{rng.randint(0, 3)}.{rng.randint(1, 30)}.{rng.randint(0, 9)}") for lib in libs
        ),
        port=rng.choice((5432, 6379, 8080, 8443, 9090)) + rng.randint(0, 9) * 10,
        env_var=f"{package.upper()}_{rng.choice(('TIMEOUT_MS', 'MAX_RETRIES', 'POOL_SIZE'))}",
        branch=f"fix/{rng.choice(_MODULES)}-{rng.randint(100, 999)}",
        dangerous=rng.choice(_DANGEROUS),
    )


# Constraint templates: (english, chinese, entity). ``{…}`` slots take the project's names.
_CONSTRAINTS: tuple[tuple[str, str, str], ...] = (
    (
        "Do not change the public API of `{cls}`.",
        "不要修改 `{cls}` 的公共接口。",
        "{cls}",
    ),
    (
        "Only edit `{path}` and its tests; leave every other module alone.",
        "只修改 `{path}` 和它的测试，其他模块一律不要动。",
        "{path}",
    ),
    (
        "Never run `{cmd}`: it talks to production.",
        "禁止运行 `{cmd}`，它会连到生产环境。",
        "{cmd}",
    ),
    (
        "Do not add new dependencies to `pyproject.toml`.",
        "不要在 `pyproject.toml` 里加新的依赖。",
        "pyproject.toml",
    ),
    (
        "Error messages must keep the original line and column numbers.",
        "错误信息必须保留原始行号和列号。",
        "{line_word}",
    ),
    (
        "Never commit directly to `main`; push to `{branch}` instead.",
        "不要直接提交到 `main` 分支，改推到 `{branch}`。",
        "{branch}",
    ),
    (
        "Do not rename the `{env}` environment variable.",
        "不要重命名环境变量 `{env}`。",
        "{env}",
    ),
    (
        "You must keep `{fn}` backwards compatible with Python 3.9.",
        "`{fn}` 必须保持对 Python 3.9 的兼容。",
        "{fn}",
    ),
)


def _fill(template: str, p: _Project, zh: bool) -> str:
    return template.format(
        cls=p.classes[0],
        path=p.path(p.modules[0]),
        cmd=p.dangerous,
        branch=p.branch,
        env=p.env_var,
        fn=p.functions[1],
        line_word="行号" if zh else "line",
    )


class _Builder:
    """Appends messages and records the plants; one per generated session."""

    def __init__(self, spec: SessionSpec) -> None:
        self.spec = spec
        self.zh = spec.language == "zh"
        self.rng = random.Random(spec.seed)
        self.p = _project(self.rng)
        self.messages: list[Message] = []
        self.constraints: list[PlantedConstraint] = []
        self.identifiers: list[PlantedIdentifier] = []
        self._seen_ids: set[str] = set()
        self._calls = 0

    def t(self, en: str, zh: str) -> str:
        return zh if self.zh else en

    # --- plumbing -------------------------------------------------------------------

    def say(self, role: str, text: str) -> None:
        self.messages.append({"role": role, "content": text})

    def _call_id(self) -> str:
        self._calls += 1
        return f"call_{self.spec.seed:x}_{self._calls:05d}"

    def plant(self, text: str, kind: str, index: int) -> None:
        if text not in self._seen_ids:
            self._seen_ids.add(text)
            self.identifiers.append(PlantedIdentifier(text, kind, index))

    def tool_unit(
        self, prose: str, calls: list[tuple[str, dict[str, Any], str, list[tuple[str, str]]]]
    ) -> list[Message]:
        """An assistant message making ``calls`` and one tool message answering each.

        Each call is (tool name, arguments, output, identifiers introduced by the output).
        """
        ids = [self._call_id() for _ in calls]
        unit: list[Message] = [
            {
                "role": "assistant",
                "content": prose,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": name,
                            "arguments": msgspec.json.encode(args).decode(),
                        },
                    }
                    for call_id, (name, args, _, _) in zip(ids, calls, strict=True)
                ],
            }
        ]
        for call_id, (_, _, output, _) in zip(ids, calls, strict=True):
            unit.append({"role": "tool", "tool_call_id": call_id, "content": output})
        return unit

    def commit_unit(
        self,
        unit: list[Message],
        calls: list[tuple[str, dict[str, Any], str, list[tuple[str, str]]]],
    ) -> None:
        base = len(self.messages)
        self.messages.extend(unit)
        for offset, (_, _, _, idents) in enumerate(calls, start=1):
            for text, kind in idents:
                self.plant(text, kind, base + offset)

    # --- the opening: task and standing constraints ---------------------------------

    def opening(self) -> str:
        p, rng = self.p, self.rng
        self.say(
            "system",
            self.t(
                f"You are a coding agent working in the `{p.package}` repository. "
                "Use the tools to read files, run commands and edit code.",
                f"你是在 `{p.package}` 仓库里工作的编程助手。用工具读文件、运行命令、修改代码。",
            ),
        )
        fn, mod = p.functions[0], p.modules[0]
        task = self.t(
            f"Fix the intermittent failure in `{fn}` ({p.path(mod)}): requests under load "
            f"time out instead of retrying.",
            f"修复 `{fn}`（{p.path(mod)}）里的偶发失败：高负载下请求直接超时，没有重试。",
        )
        picked = rng.sample(range(len(_CONSTRAINTS)), 5)
        first, later = picked[:3], picked[3:]
        lines = [task, ""]
        for k in first:
            lines.append(_fill(_CONSTRAINTS[k][1 if self.zh else 0], p, self.zh))
        self.say("user", "\n".join(lines))
        for k in first:
            en, zh, entity = _CONSTRAINTS[k]
            self.constraints.append(
                PlantedConstraint(
                    _fill(zh if self.zh else en, p, self.zh), 1, _fill(entity, p, self.zh)
                )
            )
        self._later_constraints = later
        return task

    def later_constraints(self) -> None:
        """The remaining constraints, stated a few rounds in (still early: standing)."""
        p = self.p
        texts = [
            _fill(_CONSTRAINTS[k][1 if self.zh else 0], p, self.zh) for k in self._later_constraints
        ]
        intro = self.t("One more thing before you go on:", "继续之前再补充两点：")
        index = len(self.messages)
        # Chinese runs sentences together with no space after 。
        sep = "" if self.zh else " "
        self.say("user", intro + sep + sep.join(texts))
        for k, text in zip(self._later_constraints, texts, strict=True):
            entity = _fill(_CONSTRAINTS[k][2], p, self.zh)
            self.constraints.append(PlantedConstraint(text, index, entity))
        self.say("assistant", self.rng.choice(_ACK_ZH if self.zh else _ACK_EN))

    # --- rounds of work -------------------------------------------------------------

    def _code_listing(self, module: str) -> tuple[str, list[tuple[str, str]]]:
        p, rng = self.p, self.rng
        cls = rng.choice(p.classes)
        fns = rng.sample(p.functions, rng.randint(3, 6))
        lib, _version = rng.choice(p.libraries)
        lines = [
            f'"""{module}: {rng.choice(("retry and backoff", "pooled connections", "config"))}."""',
            "",
            "from __future__ import annotations",
            "",
            f"import {lib}",
            "",
            f"DEFAULT_PORT = {p.port}",
            f'TIMEOUT_ENV = "{p.env_var}"',
            "",
            "",
            f"class {cls}:",
            f'    """Used by {fns[0]} and {fns[1]}."""',
            "",
        ]
        for fn in fns:
            n = rng.randint(4, 16)
            lines.append(f"    def {fn}(self, value: int, *, timeout: float = 2.5) -> int:")
            for i in range(n):
                lines.append(f"        value = value * {rng.randint(2, 9)} + {i}  # step {i}")
            lines.append("        return value")
            lines.append("")
        numbered = "\n".join(f"{i + 1:4d}\t{text}" for i, text in enumerate(lines))
        # The listing holds no path (the path is in the call): only what the file shows.
        idents = [(cls, "symbol"), (p.env_var, "env")]
        idents += [(fn, "symbol") for fn in fns]
        return numbered, idents

    def read_file(self) -> None:
        p = self.p
        module = self.rng.choice(p.modules)
        path = p.path(module)
        listing, idents = self._code_listing(module)
        prose = self.t(f"Let me read `{path}`.", f"先看一下 `{path}`。")
        calls = [("read_file", {"path": path}, listing, idents)]
        self.commit_unit(self.tool_unit(prose, calls), calls)

    def run_tests(self) -> None:
        p, rng = self.p, self.rng
        module = rng.choice(p.modules)
        test = p.test_path(module)
        cmd = f"pytest {test} -q"
        idents: list[tuple[str, str]] = []  # a passing run names no file
        if rng.random() < 0.55:
            fn = rng.choice(p.functions)
            line = rng.randint(20, 400)
            err, msg_en, msg_zh = rng.choice(_ERRORS)
            msg = (msg_zh if self.zh else msg_en).format(
                n=rng.randint(100, 9000), m=rng.randint(1, 99), sym=rng.choice(p.functions)
            )
            out = "\n".join(
                [
                    f"F.{'.' * rng.randint(2, 8)}F",
                    "=" * 30 + " FAILURES " + "=" * 30,
                    f"___ test_{fn}_under_load ___",
                    "Traceback (most recent call last):",
                    f'  File "{test}", line {rng.randint(10, 90)}, in test_{fn}_under_load',
                    f"    assert client.{fn}(payload) == expected",
                    f'  File "{p.path(module)}", line {line}, in {fn}',
                    f"    return self._pool.{rng.choice(p.functions)}(value, timeout=timeout)",
                    f"{err}: {msg}",
                    f"FAILED {test}::test_{fn}_under_load - {err}",
                    f"{rng.randint(1, 3)} failed, {rng.randint(5, 60)} passed in "
                    f"{rng.randint(1, 9)}.{rng.randint(10, 99)}s",
                ]
            )
            idents += [
                (test, "path"),
                (p.path(module), "path"),
                (fn, "symbol"),
                (f"test_{fn}_under_load", "symbol"),
            ]
        else:
            dots = "." * rng.randint(8, 40)
            out = f"{dots}\n{rng.randint(8, 90)} passed in 0.{rng.randint(10, 99)}s"
        prose = self.t("Running the tests.", "跑一下测试。")
        calls = [("run_shell", {"command": cmd}, out, idents)]
        self.commit_unit(self.tool_unit(prose, calls), calls)

    def grep(self) -> None:
        p, rng = self.p, self.rng
        sym = rng.choice(p.functions + p.classes)
        hits = []
        idents: list[tuple[str, str]] = [(sym, "symbol")]
        for module in rng.sample(p.modules, rng.randint(1, 4)):
            hits.append(f"{p.path(module)}:{rng.randint(5, 300)}:    result = {sym}(value)")
            idents.append((p.path(module), "path"))
        prose = self.t(f"Where is `{sym}` used?", f"查一下 `{sym}` 在哪里被调用。")
        calls = [("grep", {"pattern": sym, "path": "src"}, "\n".join(hits), idents)]
        self.commit_unit(self.tool_unit(prose, calls), calls)

    def environment(self) -> None:
        """Two tool calls in one message: versions and the listening port."""
        p, rng = self.p, self.rng
        lib, ver = rng.choice(p.libraries)
        site = f"/srv/{p.package}/.venv/lib/python3.11/site-packages"
        pip_out = f"Name: {lib}\nVersion: {ver}\nLocation: {site}"
        pid = rng.randint(1000, 65000)
        lsof_out = (
            "COMMAND   PID USER   FD   TYPE DEVICE SIZE/OFF NODE NAME\n"
            f"python  {pid} dev    7u  IPv4 0x{rng.getrandbits(32):08x}      0t0  TCP "
            f"localhost:{p.port} (LISTEN)"
        )
        calls = [
            ("run_shell", {"command": f"pip show {lib}"}, pip_out, [(ver, "version")]),
            ("run_shell", {"command": f"lsof -i :{p.port}"}, lsof_out, [(str(p.port), "port")]),
        ]
        prose = self.t(
            "Checking the installed version and what listens on the port.",
            "看看装的版本和端口上在跑什么。",
        )
        self.commit_unit(self.tool_unit(prose, calls), calls)

    def edit(self) -> None:
        p, rng = self.p, self.rng
        module = rng.choice(p.modules)
        fn = rng.choice(p.functions)
        old = f"    return self._pool.{fn}(value, timeout=timeout)"
        new = f"    return self._retry(self._pool.{fn}, value, timeout=timeout)"
        prose = self.t(f"Editing `{fn}` to retry.", f"修改 `{fn}`，加上重试。")
        out = f"Applied 1 edit to {p.path(module)} (+{rng.randint(1, 9)} -{rng.randint(1, 5)})"
        calls = [
            (
                "edit_file",
                {"path": p.path(module), "old": old, "new": new},
                out,
                [(p.path(module), "path")],
            )
        ]
        self.commit_unit(self.tool_unit(prose, calls), calls)

    def decision(self) -> None:
        p, rng = self.p, self.rng
        fn = rng.choice(p.functions)
        delay = rng.choice((50, 100, 200, 250))
        self.say(
            "assistant",
            self.t(
                f"Decision: `{fn}` will use exponential backoff starting at {delay} ms with "
                f"jitter, capped at {rng.randint(3, 8)} attempts, instead of a fixed sleep.",
                f"决定：`{fn}` 改用指数退避，从 {delay} 毫秒开始并加抖动，最多重试 "
                f"{rng.randint(3, 8)} 次，不再固定等待。",
            ),
        )

    def filler(self) -> None:
        self.say("user", self.rng.choice(_FILLER_ZH if self.zh else _FILLER_EN))

    def status(self) -> None:
        self.say("user", self.t("What's the status?", "进展如何？"))
        failing = self.rng.randint(0, 4)
        self.say(
            "assistant",
            self.t(
                f"{failing} tests still fail; I am working through them one by one.",
                f"还有 {failing} 个测试失败，正在逐个处理。",
            ),
        )


# Relative weights of the kinds of round; the shape of a real coding session: mostly
# reading and testing, some edits, fewer decisions, chatter in between.
_ROUNDS: tuple[tuple[str, int], ...] = (
    ("read_file", 5),
    ("run_tests", 4),
    ("grep", 3),
    ("environment", 1),
    ("edit", 3),
    ("decision", 2),
    ("filler", 3),
    ("status", 1),
)
_ROUND_SIZE = {
    "read_file": 2,
    "run_tests": 2,
    "grep": 2,
    "environment": 3,
    "edit": 2,
    "decision": 1,
    "filler": 1,
    "status": 2,
}


def generate_session(spec: SessionSpec) -> GeneratedSession:
    """Generate the session ``spec`` describes (exactly ``spec.messages`` messages, >= 12)."""
    if spec.messages < 12:
        raise ValueError(f"a session needs at least 12 messages, got {spec.messages}")
    b = _Builder(spec)
    task = b.opening()
    names = [name for name, _ in _ROUNDS]
    weights = [w for _, w in _ROUNDS]
    later_at = max(4, spec.messages // 25)
    later_done = False
    while len(b.messages) < spec.messages:
        room = spec.messages - len(b.messages)
        if not later_done and len(b.messages) >= later_at and room >= 2:
            b.later_constraints()
            later_done = True
            continue
        name = b.rng.choices(names, weights)[0]
        if _ROUND_SIZE[name] > room:
            name = "filler" if b.messages[-1]["role"] != "user" else "decision"
        getattr(b, name)()
    return GeneratedSession(
        spec=spec,
        task=task,
        messages=tuple(b.messages),
        constraints=tuple(b.constraints),
        identifiers=tuple(b.identifiers),
    )


def session_bytes(session: GeneratedSession) -> bytes:
    """The session's messages as canonical JSON (sorted keys): same seed, same bytes."""
    return msgspec.json.encode(list(session.messages), order="sorted")


def harness_summary(session: GeneratedSession, seed: int = 0) -> str:
    """A summary as a harness's LLM compactor writes one, for the speed benchmark's logs:
    Claude Code's opening line, the task, about half of the constraints (the typical
    loss), most identifiers, and one invented path, so an audit has real work to do."""
    rng = random.Random(session.spec.seed * 7919 + seed)
    kept = [c.text for c in session.constraints if rng.random() < 0.5]
    idents = [i.text for i in session.identifiers if rng.random() < 0.8]
    parts = [
        "This session is being continued from a previous conversation that ran out of "
        "context. The conversation is summarized below:",
        "Analysis:",
        "The user asked for a fix; I read the code, ran the tests and edited files.",
        "Summary:",
        f"1. Primary Request and Intent: {session.task}",
        "2. Constraints: " + (" ".join(kept) if kept else "none recorded"),
        "3. Files and Code Sections: " + ", ".join(idents[:60]),
        "4. Errors and fixes: a timeout under load; retries added. See also "
        f"src/{rng.choice(_PACKAGES)}/legacy_shim.py.",
        "5. Pending Tasks: finish the failing tests.",
    ]
    return "\n".join(parts)


def iter_corpus(name: str) -> Iterator[GeneratedSession]:
    """Generate every session of a named corpus, in order (on the fly; nothing is stored)."""
    for spec in corpus(name):
        yield generate_session(spec)
