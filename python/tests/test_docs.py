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
    text = (SOURCE / doc if doc == "README.md" else SOURCE / "docs" / doc).read_text()
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


def test_python_md_copy_runs(tmp_path):
    import partkv
    with partkv.TableServiceClient(str(tmp_path / "readings-2025")) as service:
        readings = service.create_table("Readings")
        for i in range(40):
            readings.create_entity({"PartitionKey": "d-%d" % (i % 4), "RowKey": "%04d" % i,
                                    "deviceId": "d-%d" % (i % 4),
                                    "day": "2025-06-%02d" % (20 + i % 10) if i < 15
                                    else "2025-07-%02d" % (1 + i % 9), "t": i / 2})
    done = run_python(blocks("python.md", "python")[2], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    last = done.stdout.replace("\r", "\n").splitlines()
    assert last[-2].split()[0] == "25", done.stdout  # rows_written, elapsed
    assert last[-1] == "True 0 []", done.stdout
    assert not (tmp_path / "readings.copy").exists()  # a finished copy deletes its checkpoint


def test_python_md_sync_runs(tmp_path):
    program = blocks("python.md", "python")[4]
    assert "partkv.sync_table" in program
    done = run_python(program, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1 0 0\ninsert 0001 application\n", done.stdout
    # Again: the upsert merges into the entity, the sync pushes it; nothing came from the remote.
    done = run_python(program, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1 0 0\ninsert 0001 application\nmerge 0001 application\n", done.stdout
    import partkv
    with partkv.TableServiceClient(str(tmp_path / "orders-remote")) as remote:
        assert remote.get_table_client("Orders").get_entity("c-42", "0001")["Item"] == "keyboard"


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


def readme_blocks(language):
    section = (SOURCE / "README.md").read_text().split("## From C and from Python", 1)[1]
    section = section.split("\n## ", 1)[0]
    return re.findall(r"^```" + language + r"\n(.*?)^```$", section, re.S | re.M)


def test_readme_python_program_runs(tmp_path):
    for expected_runs in range(2):
        done = run_python(readme_blocks("python")[0], cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "['order-0001'] None\n"


def test_readme_c_program_runs(tmp_path):
    import partkv
    compiler = shutil.which("cc") or shutil.which("gcc")
    library = pathlib.Path(partkv.LIBRARY_PATH).resolve()
    header_dir = pathlib.Path(partkv.HEADER_PATH).resolve().parents[1]
    program = ("#include <stdio.h>\n#include <partkv/c.h>\nint main(void) {\n" +
               readme_blocks("c")[0] + "return 0;\n}\n")
    (tmp_path / "app.c").write_text(program)
    build = subprocess.run(
        [compiler, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", str(header_dir),
         "app.c", str(library), "-Wl,-rpath," + str(library.parent), "-o", "app"],
        cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    for _ in range(2):
        done = subprocess.run([str(tmp_path / "app")], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0 and done.stderr == "", done.stderr
    import partkv as p
    with p.TableServiceClient(str(tmp_path / "data")) as service:
        order = service.get_table_client("Orders").get_entity("customer-17", "order-0001")
        assert order["total"] == 99.5
