"""The programs docs/python.md and docs/c-api.md show run as shown."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def blocks(doc, language):
    text = (SOURCE / "docs" / doc).read_text()
    return re.findall(r"^```" + language + r"\n(.*?)^```$", text, re.S | re.M)


def run_python(code, *args, cwd):
    import partkv  # the package under test: the program imports the same one
    script = cwd / "program.py"
    script.write_text(code)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(pathlib.Path(partkv.__file__).resolve().parents[1])
    env["PARTKV_LIBRARY"] = str(pathlib.Path(partkv.LIBRARY_PATH).resolve())
    env["PARTKV_C_HEADER"] = str(pathlib.Path(partkv.HEADER_PATH).resolve())
    return subprocess.run([sys.executable, str(script), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_python_md_program_runs_twice_with_the_same_output(tmp_path):
    program = blocks("python.md", "python")[0]
    store = tmp_path / "store"
    outputs = []
    for _ in range(2):
        done = run_python(program, str(store), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == "changed meanwhile\norder-0001 3 9007199254740993\n"


def test_python_md_extras_run(tmp_path):
    extras = blocks("python.md", "python")[1]
    (tmp_path / "readings.jsonl").write_text(
        '{"day":"2026-12-02","deviceId":"d-9","RowKey":"0002","t":21.5}\n')
    program = "import sys, partkv\nservice = partkv.TableServiceClient(sys.argv[1])\n" + extras
    done = run_python(program, str(tmp_path / "store"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and re.fullmatch(r"2026-12-01\.\d+ 0001", lines[0]), done.stdout


def test_c_api_md_program_builds_and_runs(tmp_path):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.fail("no C compiler on PATH")
    import partkv
    library = pathlib.Path(partkv.LIBRARY_PATH).resolve()
    header_dir = pathlib.Path(partkv.HEADER_PATH).resolve().parents[1]
    (tmp_path / "orders.c").write_text(blocks("c-api.md", "c")[0])
    build = subprocess.run(
        [compiler, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", str(header_dir),
         "orders.c", str(library), "-Wl,-rpath," + str(library.parent), "-o", "orders"],
        cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    for _ in range(2):  # the second run finds the table and the row there already
        done = subprocess.run([str(tmp_path / "orders"), str(tmp_path / "store")],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "order-0001\n"
