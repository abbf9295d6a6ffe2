#!/usr/bin/env python3
"""Runs the README's runnable blocks and compares what they print with what it shows.

    readme_blocks.py README.md CLI_DIR      run every block (CLI_DIR holds lcstudio-cli)
    readme_blocks.py --self-test            check the matcher itself

A fenced `console` block holds commands (lines starting "$ "; a command continues on the
next line after a trailing backslash, and through a heredoc's terminator) each followed by
the output it prints (stdout and stderr together, as a terminal shows them). A fenced
`python` block is run with python3; a fenced `text` block right after it is its expected
output. Every block runs in one scratch directory, in the README's order, with CLI_DIR
first on PATH. `sh` blocks and indented blocks are illustrations and are not run.

Matching, line by line; blank lines are ignored and runs of spaces (leading ones too) fold:
- an expected line `...` stands for any number of lines;
- words must be equal, and so must whole numbers (counts) and digits inside a word
  (bbvi_r0_q.pt, 2-50-2); a number with a decimal point or an exponent may differ by the
  larger of 1% of the shown value and two units of its last shown digit (0.0160 accepts
  0.0158-0.0162), which covers the last digits a different BLAS may change;
- a command (run by bash with pipefail) must exit 0 unless its output ends with a line
  `[exit N]`, which then must be its exit status.
"""
import os
import re
import subprocess
import sys
import tempfile

# A measured figure: a number with a decimal point or an exponent, standing alone (not
# part of a word, a file name or a dashed list such as 2-50-2).
NUMBER = re.compile(r"(?<![\w.-])[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)(?![\w.])")
TIMEOUT_SECONDS = 300


def fenced_blocks(text):
    """(info string, lines, first line number) of every fenced block, in order."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^```\s*(\S*)", lines[i])
        if not m:
            i += 1
            continue
        start, info, body = i + 1, m.group(1), []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"README line {start}: a fenced block is never closed")
        blocks.append((info, body, start))
        i += 1
    return blocks


def console_commands(body, first_line):
    """[(command, expected lines, line number)] of a console block."""
    out, i = [], 0
    while i < len(body):
        line = body[i]
        if not line.startswith("$ "):
            raise SystemExit(f"README line {first_line + i}: output before any command in a console block")
        number, command = first_line + i, [line[2:]]
        i += 1
        heredoc = re.search(r"<<-?\s*'?\"?(\w+)'?\"?", line)
        if heredoc:
            end = heredoc.group(1)
            while i < len(body) and body[i].strip() != end:
                command.append(body[i])
                i += 1
            if i == len(body):
                raise SystemExit(f"README line {number}: heredoc {end} is never closed")
            command.append(body[i])
            i += 1
        while command[-1].endswith("\\") and i < len(body):
            command.append(body[i])
            i += 1
        expected = []
        while i < len(body) and not body[i].startswith("$ "):
            expected.append(body[i])
            i += 1
        out.append(("\n".join(command), expected, number))
    return out


def normalise(line):
    return " ".join(line.split())


def tolerance(shown):
    decimals = len(re.match(r"[-+]?\d*\.?(\d*)", shown).group(1))
    exponent = re.search(r"[eE]([-+]?\d+)", shown)
    unit = 10.0 ** (-decimals + (int(exponent.group(1)) if exponent else 0))
    return max(0.01 * abs(float(shown)), 2 * unit)


def line_matches(expected, actual):
    e, a = normalise(expected), normalise(actual)
    if e == a:
        return True
    e_words, a_words = NUMBER.split(e), NUMBER.split(a)
    e_numbers, a_numbers = NUMBER.findall(e), NUMBER.findall(a)
    if e_words != a_words or len(e_numbers) != len(a_numbers):
        return False
    return all(abs(float(x) - float(y)) <= tolerance(x) for x, y in zip(e_numbers, a_numbers))


def output_matches(expected, actual):
    """Whether `actual` lines match `expected` lines, `...` matching any run of lines."""
    expected = [l for l in expected if l.strip() != ""]
    actual = [l for l in actual if l.strip() != ""]
    memo = {}

    def match(i, j):
        if (i, j) in memo:
            return memo[i, j]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i].strip() == "...":
            result = any(match(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and line_matches(expected[i], actual[j]) and match(i + 1, j + 1)
        memo[i, j] = result
        return result

    return match(0, 0)


def expected_exit(expected):
    if expected and re.fullmatch(r"\[exit (\d+)\]", expected[-1].strip()):
        return int(expected[-1].strip()[6:-1]), expected[:-1]
    return 0, expected


def run(command, cwd, env):
    try:
        p = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return None, [f"(timed out after {TIMEOUT_SECONDS} s)"]
    return p.returncode, p.stdout.decode("utf-8", "replace").split("\n")


def run_readme(readme, cli_dir):
    with open(readme, encoding="utf-8") as f:
        blocks = fenced_blocks(f.read())
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    # python3 is Debian's, where python3-torch installs (a pyenv or venv python3 may come
    # first on this PATH), as on the Debian machine the README is written for.
    python = env.get("LCS_PYTHON", "/usr/bin/python3")
    failures, ran = 0, 0
    with tempfile.TemporaryDirectory(prefix="readme_blocks_") as scratch, \
            tempfile.TemporaryDirectory(prefix="readme_bin_") as bin_dir:
        os.symlink(python, os.path.join(bin_dir, "python3"))
        env["PATH"] = os.pathsep.join([os.path.abspath(cli_dir), bin_dir, env.get("PATH", "")])
        for k, (info, body, first) in enumerate(blocks):
            steps = []
            if info == "console":
                steps = console_commands(body, first)
            elif info == "python":
                expected = blocks[k + 1][1] if k + 1 < len(blocks) and blocks[k + 1][0] == "text" else ["..."]
                steps = [("python3 - <<'README_PY'\n" + "\n".join(body) + "\nREADME_PY", expected, first)]
            for command, expected, number in steps:
                ran += 1
                status, expected = expected_exit(expected)
                code, actual = run(command, scratch, env)
                if code == status and output_matches(expected, actual):
                    print(f"ok   README line {number}: {command.splitlines()[0][:90]}")
                    continue
                failures += 1
                print(f"FAIL README line {number}: {command.splitlines()[0]}")
                print(f"  exit status {code}, expected {status}")
                print("  expected:\n" + "\n".join("    " + l for l in expected))
                print("  printed:\n" + "\n".join("    " + l for l in actual))
    print(f"{ran} block command(s) run, {failures} failed")
    if ran == 0:
        print("no runnable block found: the README must hold console or python blocks")
        return 1
    return 1 if failures else 0


def self_test():
    """The matcher refuses what it must refuse: a test that cannot fail is no test."""
    cases = [
        (["cost 0.0160"], ["cost 0.0161"], True),
        (["cost 0.0160"], ["cost 0.0170"], False),            # outside 2 units of the 4th decimal
        (["cost 0.0160"], ["cost  0.0160  "], True),          # spaces fold
        (["12000 rows"], ["12001 rows"], False),              # counts match exactly
        (["q kept in 0 of 3"], ["q kept in 2 of 3"], False),
        (["mlp 2-50-2"], ["mlp 4-50-4"], False),              # digits inside words
        (["models/bbvi_r0_q.pt"], ["models/bbvi_r2_q.pt"], False),
        (["1200.0 rows"], ["1210.0 rows"], True),             # within 1% of 1200.0
        (["1200.0 rows"], ["1230.0 rows"], False),
        (["ours 0.5"], ["ours -0.5"], False),                 # sign
        (["a", "...", "z"], ["a", "b", "c", "z"], True),
        (["a", "...", "z"], ["a", "b", "c"], False),
        (["a"], ["a", "extra"], False),
        (["method ours"], ["method theirs"], False),
        (["1.5e+07 pixels"], ["1.7e+07 pixels"], True),       # two units of the shown 0.1e+07
        (["1.5e+07 pixels"], ["1.8e+07 pixels"], False),
    ]
    bad = 0
    for expected, actual, want in cases:
        if output_matches(expected, actual) != want:
            bad += 1
            print(f"matcher wrong: {expected} vs {actual}: expected {want}")
    if tolerance("0.0160") != max(0.01 * 0.016, 2e-4) or tolerance("3") != 2:
        bad += 1
        print("tolerance wrong")
    blocks = fenced_blocks("x\n```console\n$ echo a \\\n  b\na b\n$ cat <<'E'\nq\nE\nq\n```\n")
    steps = console_commands(blocks[0][1], blocks[0][2])
    if [s[0] for s in steps] != ["echo a \\\n  b", "cat <<'E'\nq\nE"] or steps[1][1] != ["q"]:
        bad += 1
        print(f"console parsing wrong: {steps}")
    if expected_exit(["error", "[exit 2]"]) != (2, ["error"]):
        bad += 1
        print("exit status parsing wrong")
    print("self-test " + ("failed" if bad else "passed"))
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(run_readme(sys.argv[1], sys.argv[2]))
