"""``dod-generate``: settings as flags, formats, files or stdout, batches with a progress bar."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mapgen import Settings, generate
from mapgen.cli import main
from worlds.baddies import read_board
from worlds.baddies.generated import to_baddies
from worlds.classic.generated import to_classic
from worlds.classic.mapfile import parse_map, read_map
from worlds.crawler import parse_level
from worlds.crawler.dungeon import open_dungeon
from worlds.crawler.generated import crawler_levels

from ..limits import process_limit


def test_the_default_is_the_drawing_of_seed_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    captured = capsys.readouterr()
    assert captured.out == generate(0).drawing()
    assert captured.err == ""


def test_settings_as_flags(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--seed", "9", "--width", "50", "--height", "15", "--rooms", "6"]
    flags += ["--room-width", "3-6", "--room-height", "2-4", "--winding", "2", "--loops", "0.5"]
    assert main(flags) == 0
    settings = Settings(50, 15, 6, (3, 6), (2, 4), 2.0, 0.5)
    assert capsys.readouterr().out == generate(9, settings).drawing()


def test_a_classic_map_to_a_file(tmp_path: Path) -> None:
    path = tmp_path / "gen.map"
    assert main(["--seed", "4", "--format", "classic", "--output", str(path)]) == 0
    assert read_map(path) == to_classic(generate(4), seed=4)


def test_a_crawler_dungeon_is_one_file_per_level_and_opens_by_name(tmp_path: Path) -> None:
    prefix = tmp_path / "gen"
    flags = ["--seed", "8", "--width", "60", "--height", "16", "--format", "crawler"]
    assert main([*flags, "--levels", "2", "-o", str(prefix)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gen1.txt", "gen2.txt"]
    expected = crawler_levels(8, Settings(width=60, height=16), 2)
    assert tuple(level.tiles for level in open_dungeon(str(prefix)).levels) == tuple(
        level.tiles for level in expected
    )


def test_crawler_levels_on_stdout_one_after_another(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seed", "8", "--format", "crawler", "--width", "60", "--height", "16"]) == 0
    texts = capsys.readouterr().out.split("\n\n")
    assert texts[-1] == ""
    expected = crawler_levels(8, Settings(width=60, height=16))
    assert [parse_level(text).tiles for text in texts[:-1]] == [lv.tiles for lv in expected]


def test_a_baddies_board_to_a_file(tmp_path: Path) -> None:
    path = tmp_path / "gen.map"
    assert main(["--seed", "4", "--format", "baddies", "-o", str(path)]) == 0
    assert read_board(path) == ("Generated dungeon 4", to_baddies(generate(4), seed=4))


def test_a_batch_to_files_with_a_progress_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pattern = str(tmp_path / "gen-{seed}.map")
    assert main(["--seed", "10", "--count", "5", "--format", "classic", "-o", pattern]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"gen-{s}.map" for s in range(10, 15)]
    for seed in range(10, 15):
        assert read_map(tmp_path / f"gen-{seed}.map") == to_classic(generate(seed), seed=seed)
    err = capsys.readouterr().err
    assert err.endswith("\r[" + "#" * 30 + "] 5/5\n")
    assert "] 1/5" in err


def test_a_batch_on_stdout_one_after_another(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--count", "3", "--quiet", "--format", "classic", "--width", "40"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    maps = captured.out.split("\n\n")
    assert maps[-1] == ""
    settings = Settings(width=40)
    assert [parse_map(text) for text in maps[:-1]] == [
        to_classic(generate(seed, settings), seed=seed) for seed in range(3)
    ]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--rooms", "4"], "at least 5 rooms"),
        (["--room-width", "wide"], "expected a size or a range MIN-MAX, not 'wide'"),
        (["--count", "0"], "--count must be at least 1"),
        (["--count", "2", "-o", "one.map"], "needs {seed}"),
        (["--format", "crawlr"], "invalid choice: 'crawlr'"),
        (["--levels", "2"], "--levels is for formats of several levels, not drawing"),
        (["--format", "crawler", "--levels", "0"], "--levels must be at least 1"),
    ],
)
def test_bad_options_exit_2_with_the_reason(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(flags)
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


def test_a_seed_that_cannot_make_a_dungeon_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--width", "21", "--height", "8"]) == 1
    assert capsys.readouterr().err.startswith("dod-generate: seed 0: only 4 rooms")


def test_output_into_a_folder_that_does_not_exist_makes_it(tmp_path: Path) -> None:
    # The README's `dod-generate --format crawler --levels 3 -o levels/gen`; before:
    # "cannot write levels/gen1.txt: No such file or directory".
    target = tmp_path / "levels" / "deeper" / "gen"
    assert main(["--seed", "7", "--format", "crawler", "--levels", "3", "-o", str(target)]) == 0
    assert sorted(path.name for path in target.parent.iterdir()) == [
        "gen1.txt",
        "gen2.txt",
        "gen3.txt",
    ]


def test_a_file_that_cannot_be_written_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    target = blocker / "gen.txt"  # a folder that is a file
    assert main(["-o", str(target)]) == 1
    assert capsys.readouterr().err == f"dod-generate: cannot write {target}: Not a directory\n"


def test_the_console_script_runs() -> None:
    result = subprocess.run(
        [str(Path(sys.executable).with_name("dod-generate")), "--seed", "3", "--width", "30"],
        capture_output=True,
        text=True,
        timeout=process_limit(),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == generate(3, Settings(width=30)).drawing()
