"""The installed ``dod-server`` console script, run as a real subprocess."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from server.cli import main
from server.setup.config import SETTINGS, ConfigError, ServerConfig, add_arguments, load_config

from ..helpers import REPO, Peer
from ..limits import process_limit

SCRIPT = str(Path(sys.executable).with_name("dod-server"))


async def _started(process: trio.Process) -> tuple[int, bytes]:
    """Read standard error until the server says where it listens."""
    seen = b""
    with trio.fail_after(process_limit()):
        while (match := re.search(rb"listening on 127\.0\.0\.1:(\d+)[\n\"]", seen)) is None:
            chunk = await process.stderr.receive_some(4096)  # type: ignore[union-attr]
            assert chunk, f"server exited early: {seen!r}"
            seen += chunk
    return int(match.group(1)), seen


async def test_console_script_answers_hello_and_stops_on_sigterm(tmp_path: Path) -> None:
    # Run where its default replays and records (records.db) land in the test's folder,
    # never in the checkout the suite runs from.
    process = await trio.lowlevel.open_process(
        [SCRIPT, "--port", "0", "--map", "tiny", "--log-format", "json"],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    try:
        port, seen = await _started(process)
        peer = await Peer.connect(port)
        assert await peer.ask("HELLO") == ["GOLD 1"]
        process.send_signal(signal.SIGTERM)
        assert await peer.read_to_end() == b"BYE the server is shutting down; goodbye\n"
        with trio.fail_after(process_limit()):
            assert await process.wait() == 0
            while chunk := await process.stderr.receive_some(4096):  # type: ignore[union-attr]
                seen += chunk
    finally:
        process.kill()
    records = [json.loads(line) for line in seen.decode().splitlines() if line.startswith("{")]
    events = [record["event"] for record in records]
    assert events[0] == "server listening"
    assert "client connected" in events and "server stopped" in events
    disconnect = next(r for r in records if r["event"] == "client disconnected")
    assert disconnect["reason"] == "server shutdown"
    assert (tmp_path / "records.db").is_file()  # the default database, beside the replays
    # Opening (and migrating) the store is one event of ours, not Alembic's chatter
    # ("Context impl SQLiteImpl.", each migration) on every start.
    assert not [r for r in records if str(r.get("logger", "")).startswith("alembic")], records
    assert "store ready" in events


def test_python_dash_m_server_lists_worlds() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "server", "--list-worlds"],
        capture_output=True,
        text=True,
        timeout=process_limit(),
        check=True,
    )
    assert any(line.startswith("classic ") for line in result.stdout.splitlines())


def test_a_bad_map_stops_startup_with_its_place(tmp_path: Path) -> None:
    bad = tmp_path / "bad.map"
    bad.write_text("name Bad\nwin 1\n#E#\n#?#\n")
    result = subprocess.run(
        [SCRIPT, "--port", "0", "--map", str(bad)],
        capture_output=True,
        text=True,
        timeout=process_limit(),
    )
    assert result.returncode == 2
    assert f"{bad}:4:2: unknown tile '?'" in result.stderr


def test_an_unknown_world_is_named() -> None:
    result = subprocess.run(
        [SCRIPT, "--world", "chess"],
        capture_output=True,
        text=True,
        timeout=process_limit(),
    )
    assert result.returncode == 2
    assert "unknown world 'chess'" in result.stderr


# -- settings: flags, environment, file ------------------------------------------------


def _run_script(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SCRIPT, *args],
        capture_output=True,
        text=True,
        timeout=process_limit(),
        env=env,
        cwd=cwd,
    )


def test_print_config_lists_every_setting_with_its_source(tmp_path: Path) -> None:
    settings = tmp_path / "server.toml"
    settings.write_text('port = 5000\nseed = 3\nworld = "crawler"\nidle_timeout = 5\n')
    env = {**os.environ, "DOD_PORT": "6000", "DOD_LOG_FORMAT": "json"}
    result = _run_script("--config", str(settings), "--port", "7000", "--print-config", env=env)
    assert result.returncode == 0, result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line[0] != "#"}
    assert set(lines) == {s.name for s in SETTINGS if s.name not in ("map", "maps_dir")}  # unset
    assert re.fullmatch(r"port += 7000 +# flag --port", lines["port"])  # flag > env > file
    assert re.fullmatch(r"log_format += \"json\" +# env DOD_LOG_FORMAT", lines["log_format"])
    assert re.fullmatch(rf"seed += 3 +# file {re.escape(str(settings))}", lines["seed"])
    assert re.fullmatch(r"idle_timeout += 5.0 +# file .*", lines["idle_timeout"])
    assert re.fullmatch(r"max_games += 64 +# default", lines["max_games"])
    assert "# map is not set  # default" in result.stdout
    # What --print-config prints is a settings file that gives the same settings.
    again = tmp_path / "again.toml"
    again.write_text(result.stdout)
    second = _run_script("--config", str(again), "--print-config", env=dict(os.environ))
    values = [line.split("#")[0].strip() for line in result.stdout.splitlines()]
    assert [line.split("#")[0].strip() for line in second.stdout.splitlines()] == values


def test_load_config_precedence_is_flags_then_env_then_file_then_defaults(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.toml"
    path.write_text("max_games = 5\nmax_players = 4\nturn_timeout = 2\n")
    loaded = load_config(
        {"config": str(path), "max_games": "7"},
        {"DOD_MAX_GAMES": "6", "DOD_MAX_PLAYERS": "0"},
    )
    config = loaded.config
    assert (config.max_games, config.max_players, config.turn_timeout) == (7, None, 2.0)
    assert loaded.sources["max_games"] == "flag --max-games"
    assert loaded.sources["max_players"] == "env DOD_MAX_PLAYERS"
    assert loaded.sources["turn_timeout"] == f"file {path}"
    assert (config.replay_dir, loaded.sources["replay_dir"]) == ("replays", "default")
    assert load_config({}, {"DOD_CONFIG": str(path)}).config.max_games == 5
    assert load_config({"replay_dir": ""}, {}).config.replay_dir is None
    assert load_config({}, {"DOD_IDLE_TIMEOUT": "0"}).config.idle_timeout is None


@pytest.mark.parametrize(
    ("args", "env", "toml", "message"),
    [
        (["--port", "109541"], {}, None, "--port: must be at most 65535, not 109541"),
        (["--port", "-1"], {}, None, "--port: must be at least 0, not -1"),
        (["--idle-timeout", "-1"], {}, None, "--idle-timeout: must be at least 0.01"),
        (["--idle-timeout", "nan"], {}, None, "--idle-timeout: must be a finite number"),
        (["--max-games", "many"], {}, None, "--max-games: expected a whole number, not 'many'"),
        (["--log-format", "xml"], {}, None, "--log-format: must be one of console, json"),
        ([], {"DOD_SEND_TIMEOUT": "0"}, None, "$DOD_SEND_TIMEOUT: must be more than 0"),
        ([], {}, "port = 70000\n", "port in {toml}: must be at most 65535"),
        ([], {}, 'port = "80"\n', "port in {toml}: expected a whole number, not '80'"),
        ([], {}, "colour = 1\n", "config file {toml}: unknown setting 'colour'"),
        ([], {}, "port = \n", "config file {toml} is not valid TOML"),
        (["--frobnicate"], {}, None, "unrecognized arguments: --frobnicate"),
    ],
)
def test_a_bad_setting_is_one_line_and_exit_status_2(
    args: list[str],
    env: dict[str, str],
    toml: str | None,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in [name for name in os.environ if name.startswith("DOD_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    path = tmp_path / "server.toml"
    if toml is not None:
        path.write_text(toml)
        args = [*args, "--config", str(path)]
    with pytest.raises(SystemExit) as exit:
        main([*args, "--print-config"])
    assert exit.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("dod-server: error: " + message.format(toml=path))
    assert err.count("\n") == 1


def test_an_unreadable_config_file_is_one_line(tmp_path: Path) -> None:
    result = _run_script("--config", str(tmp_path / "missing.toml"))
    assert result.returncode == 2
    assert result.stderr == (
        f"dod-server: error: cannot read config file {tmp_path / 'missing.toml'}: "
        "No such file or directory\n"
    )


def test_a_port_in_use_or_a_bad_host_is_one_line_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _run_script("--port", str(port), "--no-replays")
    assert result.returncode == 2
    assert result.stderr.startswith(f"dod-server: error: cannot listen on 127.0.0.1:{port}: ")
    assert result.stderr.count("\n") == 1, result.stderr
    result = _run_script("--host", "no-such-host.invalid", "--port", "0", "--no-replays")
    assert result.returncode == 2
    assert result.stderr.startswith("dod-server: error: cannot listen on no-such-host.invalid:0")
    assert result.stderr.count("\n") == 1, result.stderr


def test_a_server_config_built_in_code_is_checked_too() -> None:
    with pytest.raises(ConfigError, match="max_games: must be at least 1, not 0"):
        ServerConfig(max_games=0)
    assert ServerConfig(idle_timeout=0).idle_timeout is None


def test_the_readme_option_table_has_every_setting() -> None:
    readme = (REPO / "README.md").read_text()
    rows = [line for line in readme.splitlines() if line.startswith("| `--")]
    for spec in SETTINGS:
        assert any(f"`{spec.flag}`" in row.split("|")[1] for row in rows), spec.flag


def test_a_bool_setting_is_a_flag_pair_a_variable_and_a_key(tmp_path: Path) -> None:
    import argparse

    from server.setup.config import Setting

    spec = Setting(name="http", kind=bool, default=True, help="serve the web page")
    parser = argparse.ArgumentParser()
    add_arguments(parser, [spec])
    assert vars(parser.parse_args(["--no-http"])) == {"http": False}
    assert vars(parser.parse_args(["--http"])) == {"http": True}
    assert vars(parser.parse_args([])) == {}
    assert spec.parse("off") is False and spec.parse("YES") is True
    with pytest.raises(ValueError, match="expected true or false"):
        spec.parse("maybe")
    assert spec.coerce(False) is False
    with pytest.raises(ValueError, match="expected true or false, not 1"):
        spec.coerce(1)
    assert spec.show(True) == "true"


def test_a_replay_folder_that_cannot_be_written_stops_startup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(SystemExit) as exit:
        main(["--port", "0", "--replay-dir", str(blocker / "replays")])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dod-server: error: cannot write replays to {blocker / 'replays'}: ")
    assert err.count("\n") == 1
