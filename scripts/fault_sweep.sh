#!/usr/bin/env bash
# fault_sweep.sh CLI [WORKDIR]
#
# A fresh sweep of bad-input and fault-injection cases against lcstudio-cli, beside the
# catalogue in tests/bad_inputs.sh (none of its rows is repeated here). Every case runs
# alone, in its own folder, under a watchdog, and is judged on:
#   - the exit status: 0 accepted, 2 refused (1: a failure), 128+N after signal N; a
#     crash (another signal: 134, 136, 139, ...) or a hang (the watchdog) never;
#   - a refusal's message (stderr): not empty, and naming the file, flag or field;
#   - the old outputs the case gave (pre-created with known content): byte-identical
#     after a refused, failed or interrupted run; new outputs: absent after one;
#   - no temporaries or staging folders left (names holding ".tmp.") and no child
#     process left running; the inputs unchanged.
# Classes: pass, CRASH, HANG, PARTIAL (outputs half-changed, leftovers, an input
# changed), SILENT (exit 0 on something clearly wrong, or NaN in what it printed),
# UNCLEAR (the message does not name the file / flag / field), WRONG (another exit
# status than the contract's: a valid input refused, 1 where 2 is due, a signal's
# status). Sessions are also run through both `check` and `run`; every disagreement
# is listed. Prints counts per class and per command, then every non-pass case with
# its command line and the first 300 characters of its output; exits 1 if any.
#
# Needs bash 5, python3 (no numpy), coreutils; as root it also mounts small tmpfs
# folders (a full disk, a read-only folder) and sets chattr +i (a rename that fails);
# both are undone at exit. Deterministic: fixed seeds, fixed bytes. About 20-30 minutes
# on 2 cores. Environment: ONLY=family,family runs only those families (a quick look);
# KEEP=1 keeps the work folder.
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 CLI [WORKDIR]   (CLI: the lcstudio-cli binary)" >&2
  exit 2
fi
# Everything at nice 10 (others compile on this machine); children inherit it.
niceness=$(nice)
if [ "$niceness" -lt 10 ]; then
  exec nice -n $((10 - niceness)) bash "$0" "$@"
fi
cli=$(readlink -f "$1")
base="${2:-${TMPDIR:-/tmp}}"
mkdir -p "$base"
tmp=$(mktemp -d "$base/fault_sweep.XXXXXX")
tmp=$(readlink -f "$tmp")
fx="$tmp/fx"            # shared fixtures (never an output)
cases="$tmp/cases"      # one folder per case (its working directory and outputs)
mkdir -p "$fx" "$cases" "$tmp/bin" "$tmp/tmpdir" "$tmp/mnt"
mounts=()               # tmpfs / bind mounts to undo at exit
immutables=()           # chattr +i paths to undo at exit
current_pid=""
cleanup() {
  [ -n "$current_pid" ] && kill -KILL "$current_pid" 2> /dev/null
  local p
  for p in "${immutables[@]}"; do chattr -i "$p" 2> /dev/null; done
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2> /dev/null; done
  if [ -n "${KEEP:-}" ]; then echo "fault_sweep.sh: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# mnist_short DIR: an MNIST-layout folder whose training images stop 3 bytes short.
mnist_short() {
  python3 - "$1" <<'PY'
import struct, sys
d = sys.argv[1]
idx = lambda shape, vals: bytes([0, 0, 8, len(shape)]) + b''.join(struct.pack('>I', x) for x in shape) + bytes(vals)
open(d + '/train-images-idx3-ubyte', 'wb').write(idx([4, 2, 2], range(16))[:-3])
open(d + '/train-labels-idx1-ubyte', 'wb').write(idx([4], [0, 1, 2, 3]))
open(d + '/t10k-images-idx3-ubyte', 'wb').write(idx([2, 2, 2], range(8)))
open(d + '/t10k-labels-idx1-ubyte', 'wb').write(idx([2], [0, 1]))
PY
}

want_family() {  # ONLY=csv,arff: run only those families
  [ -z "${ONLY:-}" ] && return 0
  [[ ",$ONLY," == *",$1,"* ]]
}

# The CLI starts with its signals at their defaults (a background job of a script
# ignores SIGINT, nohup ignores SIGHUP): env --default-signal (coreutils 9), else a
# python stand-in (which ignores SIGPIPE itself, so it resets that too).
cat > "$tmp/bin/dfl.py" <<'PY'
import os, signal, sys
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT, signal.SIGPIPE):
    signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])
PY
if env --default-signal=INT true 2> /dev/null; then
  launch=(env --default-signal=INT,QUIT,HUP,TERM,PIPE TMPDIR="$tmp/tmpdir" "$cli")
else
  launch=(env TMPDIR="$tmp/tmpdir" python3 "$tmp/bin/dfl.py" "$cli")
fi
# Strict JSON check of an output (NaN / Infinity are not JSON).
cat > "$tmp/bin/json_ok.py" <<'PY'
import json, sys
def bad(x):
    raise ValueError("non-finite constant " + x)
try:
    json.load(open(sys.argv[1], encoding="utf-8"), parse_constant=bad)
except Exception as e:
    print(e)
    sys.exit(1)
PY

# ---------------------------------------------------------------- the case runner
ncase=0
results="$tmp/results.tsv"   # id, family, command, class, note
: > "$results"
: > "$tmp/known_leftovers"
LAST_RC=0
LAST_WORKING=0

show() {  # a command line for the report ($T = the sweep's temp folder)
  local out="lcstudio-cli" a
  for a in "$@"; do
    a="${a//$tmp/\$T}"
    if [ ${#a} -gt 120 ]; then a="${a:0:100}...(${#a} chars)"; fi
    if [[ "$a" =~ [[:space:]\'\"\;\&\|\<\>\(\)\$\`] ]] || [ -z "$a" ]; then
      a="'${a//\'/\'\\\'\'}'"
    fi
    out+=" $a"
  done
  printf '%s' "$out" | tr -d '\000-\010\016-\037' | tr '\n\t' '  '
}

snap() {  # a fingerprint of a path: kind, content (recursively for a folder)
  local p="$1"
  if [ -L "$p" ]; then
    printf 'link:%s:' "$(readlink "$p")"
    if [ -f "$p" ]; then cksum < "$p"; else echo; fi
  elif [ -p "$p" ]; then echo fifo
  elif [ -f "$p" ]; then printf 'file:'; cksum < "$p"
  elif [ -d "$p" ]; then
    printf 'dir:'
    (cd "$p" && { find . -mindepth 1 -printf '%y %p\n' | LC_ALL=C sort
                  find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r cksum; } | cksum)
  elif [ -e "$p" ]; then echo other
  else echo absent
  fi
}

descendants() {  # every descendant of a pid
  local p c
  for p in "$@"; do
    for c in $(cat /proc/"$p"/task/*/children 2> /dev/null); do
      echo "$c"
      descendants "$c"
    done
  done
}

cli_procs() {  # CLI processes still running whose command line names this sweep
  local e d
  for e in $(find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$cli*" 2> /dev/null); do
    d=${e%/exe}
    tr '\0' ' ' < "$d/cmdline" 2> /dev/null | grep -qF -- "$tmp" && echo "${d#/proc/}"
  done
}

now_ms() { _t=${EPOCHREALTIME/./}; _t=$((_t / 1000)); }
# A 50 ms pause without a fork: a read that times out on a FIFO nobody writes.
mkfifo "$tmp/bin/never"
exec 9<> "$tmp/bin/never"
pause() { read -r -t 0.05 -u 9 _ || :; }

output_flags=" --json --csv --out --save-models --cost-benefit --reliability --write-session --wide-csv --overlays --risk-coverage "

# case FAMILY EXPECT [options] -- ARGS...
#   EXPECT ok (exit 0), bad (exit 2), fail (exit 1 or 2), any (0, 1 or 2),
#          sig (128 + the -S signal's number)
#   -n TEXT   a refusal must name this (repeatable: any one of them)
#   -k PATH   an old output: unchanged unless the run succeeds
#   -K PATH   unchanged whatever happens (an input not on the command line, a link's target)
#   -a PATH   a new output: absent unless the run succeeds
#   -e PATH   must exist after a success
#   -t SECS   watchdog (default 60): still running then is a hang
#   -w SECS   work cap: still running then, with no refusal, counts as accepted (SIGTERM)
#   -S SIG SECS   send SIG that many seconds after the start
#   -R SECS   send the same signal again that many seconds after the start
#   -C DIR    working directory (default: the case's own folder)
#   -d TEXT   a note for the report
# Sets LAST_RC (the exit status, 0 for an accepted run stopped by the work cap) and
# LAST_WORKING.
case_() {
  local fam="$1" expect="$2"
  shift 2
  local -a tokens=() keeps=() keepall=() absents=() exists=()
  local hard=60 work=0 sig="" sigat="" note="" cwd="" again=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case "$1" in
      -n) tokens+=("$2"); shift 2 ;;
      -k) keeps+=("$2"); shift 2 ;;
      -K) keepall+=("$2"); shift 2 ;;
      -a) absents+=("$2"); shift 2 ;;
      -e) exists+=("$2"); shift 2 ;;
      -t) hard="$2"; shift 2 ;;
      -w) work="$2"; shift 2 ;;
      -S) sig="$2"; sigat="$3"; shift 3 ;;
      -R) again="$2"; shift 2 ;;
      -C) cwd="$2"; shift 2 ;;
      -d) note="$2"; shift 2 ;;
      *) echo "fault_sweep.sh: script bug: option $1" >&2; exit 3 ;;
    esac
  done
  shift
  ncase=$((ncase + 1))
  local id
  id=$(printf '%03d' "$ncase")
  local cdir="$cases/$id"
  mkdir -p "$cdir"
  [ -z "$cwd" ] && cwd="$cdir"
  local cmd
  cmd=$(show "$@")

  # Inputs: every existing file or folder of the sweep named on the command line, but
  # the values of output flags (and a sweep folder that sweep run fills).
  local -a inputs=()
  local prev="" a
  if ! { [ "${1:-}" = sweep ] && [ "${2:-}" = run ]; }; then
    for a in "$@"; do
      if [[ "$output_flags" != *" $prev "* ]] && [[ "$a" != --*=* ]] && [[ "$a" == "$tmp"/* ]] &&
         { [ -f "$a" ] || [ -d "$a" ]; } && [ ! -p "$a" ]; then
        inputs+=("$a")
      fi
      prev="$a"
    done
  fi
  local -A before=()
  local p
  for p in "${keeps[@]}" "${keepall[@]}" "${absents[@]}" "${inputs[@]}"; do
    [ -n "${before[$p]+x}" ] || before[$p]=$(snap "$p")
  done

  # Run it under the watchdog.
  now_ms; local t0=$_t
  ( cd "$cwd" && exec "${launch[@]}" "$@" ) \
    > "$cdir/.out" 2> "$cdir/.err" < /dev/null &
  local pid=$!
  current_pid=$pid
  local sent="" working=0 hung=0 deadline=$((hard * 1000)) el
  local sigms=0 workms=$((work * 1000))
  [ -n "$sig" ] && sigms=$(python3 -c "print(int(float('$sigat') * 1000))")
  local againms=-1 resent=""
  [ -n "$again" ] && againms=$(python3 -c "print(int(float('$again') * 1000))")
  while kill -0 "$pid" 2> /dev/null; do
    now_ms; el=$((_t - t0))
    # The signal goes to the CLI itself: not before the exec.
    if [ -n "$sig" ] && [ -z "$sent" ] && [ "$el" -ge "$sigms" ] &&
       [ "$(readlink "/proc/$pid/exe" 2> /dev/null)" = "$cli" ]; then
      kill -"$sig" "$pid" 2> /dev/null; sent=$el; deadline=$((el + 30000))
    fi
    if [ -n "$sent" ] && [ "$againms" -ge 0 ] && [ -z "$resent" ] && [ "$el" -ge "$againms" ]; then
      kill -"$sig" "$pid" 2> /dev/null; resent=$el
    fi
    if [ "$work" -gt 0 ] && [ "$working" = 0 ] && [ -z "$sent" ] && [ "$el" -ge "$workms" ]; then
      # Still working: a refusal comes before any work, so this run was accepted.
      # Stop it (it must stop as cleanly as after any SIGTERM).
      kill -TERM "$pid" 2> /dev/null; working=1; deadline=$((el + 30000))
    fi
    if [ "$el" -ge "$deadline" ]; then
      hung=1
      local kids
      kids=$(descendants "$pid")
      kill -KILL "$pid" $kids 2> /dev/null
      break
    fi
    pause
  done
  wait "$pid"
  local rc=$?
  current_pid=""
  now_ms; local ended=$((_t - t0))
  local secs=$((ended / 100))
  secs="$((secs / 10)).$((secs % 10))"

  local -a bad=()   # "CLASS: why", worst first at the end
  local klass=pass
  add() { bad+=("$1|$2"); }
  local want=""
  [ -n "$sig" ] && want=$((128 + $(kill -l "$sig")))
  local sent_too_late=0
  [ -n "$sig" ] && [ -z "$sent" ] && sent_too_late=1

  if [ "$hung" = 1 ]; then
    add HANG "still running after ${hard}s (or 30 s after its signal); killed"
  elif [ -n "$sent" ] && [ $((ended - sent)) -gt 10000 ]; then
    add HANG "took $(((ended - sent) / 1000)) s to stop after SIG$sig (sent at ${sigat}s)"
  elif [ "$rc" -ge 128 ] && { [ "$rc" != "$want" ] || [ "$sent_too_late" = 1 ]; } &&
       ! { [ "$working" = 1 ] && [ "$rc" = 143 ]; }; then
    local s
    s=$(kill -l $((rc - 128)) 2> /dev/null)
    add CRASH "exit $rc (SIG${s:-?})"
  elif [ "$rc" -gt 2 ] && [ "$rc" -lt 128 ]; then
    add WRONG "exit $rc: not 0, 1, 2 or 128+N"
  fi

  # Orphans: a child the CLI started and left running.
  local orphans
  orphans=$(cli_procs)
  if [ -n "$orphans" ]; then
    sleep 2
    orphans=$(cli_procs)
    if [ -n "$orphans" ]; then
      add PARTIAL "left running: pid(s) $(echo $orphans)"
      kill -KILL $orphans 2> /dev/null
    fi
  fi
  # Leftovers anywhere in the sweep's folder.
  local left
  left=$(find "$tmp" -name '*.tmp.*' 2> /dev/null | LC_ALL=C sort | comm -23 - "$tmp/known_leftovers")
  if [ -n "$left" ]; then
    add PARTIAL "left behind: $(echo "$left" | head -3 | sed "s|$tmp|\$T|g" | tr '\n' ' ')"
    { cat "$tmp/known_leftovers"; echo "$left"; } | LC_ALL=C sort -u > "$tmp/known_leftovers.new"
    mv "$tmp/known_leftovers.new" "$tmp/known_leftovers"
  fi

  local finished_ok=0   # it ran to the end and exited 0
  { [ "$rc" = 0 ] && [ "$hung" = 0 ]; } && finished_ok=1
  local ok_run=$finished_ok   # ... or was accepted and stopped by the work cap
  { [ "$working" = 1 ] && [ "$rc" = 143 ]; } && ok_run=1
  LAST_WORKING=$working
  LAST_RC=$rc
  [ "$ok_run" = 1 ] && LAST_RC=0

  for p in "${keeps[@]}"; do
    if [ "$finished_ok" = 0 ] && [ "$(snap "$p")" != "${before[$p]}" ]; then
      add PARTIAL "old output ${p//$tmp/\$T} changed by a run that did not succeed"
    fi
  done
  for p in "${absents[@]}"; do
    if [ "$finished_ok" = 0 ] && [ "$(snap "$p")" != "${before[$p]}" ]; then
      add PARTIAL "${p//$tmp/\$T} created by a run that did not succeed"
    fi
  done
  for p in "${keepall[@]}" "${inputs[@]}"; do
    if [ "$(snap "$p")" != "${before[$p]}" ]; then
      add PARTIAL "input ${p//$tmp/\$T} changed"
    fi
  done

  # The exit status against the contract.
  if [ "${#bad[@]}" = 0 ] || [[ "${bad[*]}" != *HANG* && "${bad[*]}" != *CRASH* ]]; then
    case "$expect" in
      ok)
        [ "$ok_run" = 1 ] || add WRONG "exit $rc: a valid input was not accepted" ;;
      bad)
        if [ "$ok_run" = 1 ]; then
          if [ "$working" = 1 ]; then add SILENT "accepted: still working after ${work}s"
          else add SILENT "exit 0: accepted"; fi
        elif [ "$rc" = 1 ]; then add WRONG "exit 1: bad input (or an unwritable output) is status 2"
        fi ;;
      fail)
        if [ "$ok_run" = 1 ]; then
          if [ "$working" = 1 ]; then add SILENT "accepted: still working after ${work}s"
          else add SILENT "exit 0: the run cannot have succeeded"; fi
        fi ;;
      any) ;;
      sig)
        if [ "$sent_too_late" = 1 ]; then
          add WRONG "exit $rc before the signal was sent (at ${sigat}s): the case is too short"
        elif [ "$rc" != "$want" ] && [ "$rc" -lt 128 ]; then
          add WRONG "exit $rc after SIG$sig; expected $want"
        fi ;;
      *) echo "fault_sweep.sh: script bug: expectation $expect" >&2; exit 3 ;;
    esac
  fi
  # A refusal or failure names what it is about (a refusal on stderr; a failure, status 1,
  # may report on stdout, as sweep run lists its failed cells).
  local msg="$cdir/.err"
  if [ "$rc" = 1 ]; then cat "$cdir/.err" "$cdir/.out" > "$cdir/.msg"; msg="$cdir/.msg"; fi
  if { [ "$rc" = 1 ] || [ "$rc" = 2 ]; } && [ "$working" = 0 ] && [ -z "$sent" ]; then
    if [ ! -s "$msg" ]; then
      add UNCLEAR "exit $rc with no message"
    elif [ "${#tokens[@]}" -gt 0 ]; then
      local named=0 tkn
      for tkn in "${tokens[@]}"; do
        grep -qF -- "$tkn" "$msg" && named=1
      done
      [ "$named" = 1 ] || add UNCLEAR "the message names none of: $(printf '"%s" ' "${tokens[@]//$tmp/\$T}")"
    fi
  fi
  # A success: what it promised exists, nothing non-finite printed or written.
  if [ "$finished_ok" = 1 ]; then
    for p in "${exists[@]}"; do
      [ -e "$p" ] || add SILENT "exit 0 but ${p//$tmp/\$T} was not written"
    done
    if grep -qiE '(^|[^[:alnum:]_])[-+]?(nan|inf|infinity)([^[:alnum:]_]|$)' "$cdir/.out"; then
      add SILENT "exit 0 but the output holds nan/inf: $(grep -oiE '.{0,40}(^|[^[:alnum:]_])[-+]?(nan|inf|infinity)([^[:alnum:]_]|$).{0,20}' "$cdir/.out" | head -1)"
    fi
    prev=""
    for a in "$@"; do
      if [ "$prev" = --json ] && [ -f "$a" ] && [[ "$a" == *.json ]]; then
        local why
        why=$(python3 "$tmp/bin/json_ok.py" "$a") || add SILENT "exit 0 but --json $a is not strict JSON: $why"
      fi
      prev="$a"
    done
  fi

  # The worst class wins.
  local order="CRASH HANG PARTIAL SILENT WRONG UNCLEAR" k item notes=""
  for k in $order; do
    for item in "${bad[@]}"; do
      if [ "${item%%|*}" = "$k" ]; then
        [ "$klass" = pass ] && klass=$k
      fi
    done
  done
  for item in "${bad[@]}"; do notes+="${item%%|*}: ${item#*|}; "; done
  [ -n "$note" ] && notes+="($note)"
  local famcmd="$fam"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$famcmd" "$klass" "$rc" "$cmd" "$notes" >> "$results"
  # The first 300 characters of what it printed, for the report.
  { cat "$cdir/.err" "$cdir/.out"; } 2> /dev/null | tr -d '\000' | head -c 300 | tr '\n' ' ' > "$cdir/.excerpt"
  printf '[%-7s] %s %-9s rc=%-3s %5ss %s\n' "$klass" "$id" "$fam" "$rc" "$secs" "$cmd"
  [ "$klass" = pass ] || printf '           %s\n           output: %s\n' "$notes" "$(cat "$cdir/.excerpt")"
  # Free the space of a successful run's large outputs, but keep the folder.
  return 0
}

# ---------------------------------------------------------------- fixtures (python, no numpy)
python3 - "$fx" <<'PY' || { echo "fault_sweep.sh: could not write the fixtures" >&2; exit 3; }
import json, os, random, struct, sys, zipfile, gzip, io
fx = sys.argv[1]
def put(name, data):
    path = os.path.join(fx, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))

# --- tables: two classes a/b around (-1,-1) and (1,1); rows with an empty label are unlabelled
def rows(n_lab=40, n_unl=20, seed=11, classes="ab"):
    r = random.Random(seed)
    out = []
    for i in range(n_lab):
        c = i % len(classes)
        m = -1 + 2 * c / max(1, len(classes) - 1)
        out.append(["%.3f" % (m + r.gauss(0, .6)), "%.3f" % (m + r.gauss(0, .6)), classes[c]])
    for i in range(n_unl):
        m = r.choice((-1, 1))
        out.append(["%.3f" % (m + r.gauss(0, .6)), "%.3f" % (m + r.gauss(0, .6)), ""])
    return out
def table(rs, header=("x", "y", "label"), sep=",", eol="\n"):
    return eol.join([sep.join(header)] + [sep.join(r) for r in rs]) + eol
good = rows()
put("csv/good.csv", table(good))
put("csv/bom.csv", b"\xef\xbb\xbf" + table(good).encode())
put("csv/crlf.csv", table(good, eol="\r\n"))
q = lambda s: '"' + s.replace('"', '""') + '"'
put("csv/bom_crlf_quoted.csv", b"\xef\xbb\xbf" + table([[q(c) for c in r] for r in good], header=[q(h) for h in ("x", "y", "label")], eol="\r\n").encode())
put("csv/quoted_comma_label.csv", table([r[:2] + [q({"a": "a, left", "b": "b, right", "": ""}[r[2]]) if r[2] else ""] for r in good]))
put("csv/quoted_newline_label.csv", table([r[:2] + [q(r[2] + "\nline") if r[2] else ""] for r in good]))
nl = [list(r) for r in good]; nl[5][0] = q("1\n2")
put("csv/quoted_newline_number.csv", table(nl))
put("csv/doubled_quote.csv", table([r[:2] + [q(r[2] + '"q') if r[2] else ""] for r in good]))
rg = [list(r) for r in good]; rg[7] = rg[7] + ["9"]
put("csv/ragged_long.csv", table(rg))
put("csv/trailing_comma_rows.csv", "x,y,label\n" + "".join(",".join(r) + ",\n" for r in good))
put("csv/header_trailing_comma.csv", "x,y,label,\n" + "".join(",".join(r) + ",\n" for r in good))
put("csv/empty.csv", b"")
put("csv/header_only_crlf.csv", "x,y,label\r\n")
put("csv/whitespace_only.csv", "   \n\n  \t\n")
put("csv/blank_lines.csv", table(good).replace("\n", "\n\n", 10))
put("csv/no_final_newline.csv", table(good).rstrip("\n"))
def withcell(i, j, v):
    t = [list(r) for r in good]; t[i][j] = v; return t
put("csv/big_one.csv", table(withcell(3, 0, "1e308")))
bb = withcell(3, 0, "1e308"); bb[4][0] = "-1e308"
put("csv/big_both.csv", table(bb))
put("csv/overflow_text.csv", table(withcell(3, 0, "1e400")))
put("csv/inf_text.csv", table(withcell(3, 1, "inf")))
put("csv/minus_infinity.csv", table(withcell(3, 1, "-Infinity")))
put("csv/nan_cell.csv", table(withcell(3, 1, "NaN")))
put("csv/all_inf_column.csv", table([[r[0], "inf", r[2]] for r in good]))
put("csv/dup_feature.csv", table(good, header=("x", "x", "label")))
put("csv/dup_case.csv", table(good, header=("X", "x", "label")))
put("csv/empty_label_name.csv", table(good, header=("x", "y", "")))
put("csv/one_labelled.csv", table([good[0]] + [r[:2] + [""] for r in good[1:]]))
put("csv/one_row.csv", table(good[:1]))
put("csv/two_rows.csv", table(good[:2]))
put("csv/four_rows.csv", table(good[:4]))
many = []
r = random.Random(5)
for i in range(300):
    many.append(["%.3f" % r.gauss(0, 1), "%.3f" % r.gauss(0, 1), "c%03d" % (i % 150)])
put("csv/classes_150.csv", table(many))
put("csv/classes_5.csv", table(rows(60, 10, seed=3, classes="pqrst")))
put("csv/latin1_header.csv", table(good).encode().replace(b"x,y,label", b"x\xe9,y,label", 1))
put("csv/latin1_feature.csv", ("x,colour,label\n" + "".join("%s,%s,%s\n" % (r[0], "red" if i % 2 else "blue", r[2]) for i, r in enumerate(good))).encode().replace(b"red", b"r\xffd", 1))
put("csv/overlong_utf8.csv", table(good).encode().replace(b",a\n", b",a\xc0\xaf\n", 1))
put("csv/utf8_labels.csv", table([r[:2] + [{"a": "café", "b": "thé", "": ""}[r[2]]] for r in good]))
put("csv/long_cell.csv", "x,colour,label\n" + "".join("%s,%s,%s\n" % (r[0], ("z" * 1000000) if i == 0 else ("red" if i % 2 else "blue"), r[2]) for i, r in enumerate(good)))
put("csv/nul_cell.csv", table(withcell(2, 0, "1\x002")))
put("csv/nul_header.csv", table(good, header=("x\x00", "y", "label")))
put("csv/nul_only.csv", b"\x00" * 4096)
put("csv/semicolon.csv", table(good, sep=";"))
put("csv/tab.csv", table(good, sep="\t"))
put("csv/thousands.csv", table(withcell(6, 0, q("1,000"))))
put("csv/hex.csv", table(withcell(6, 0, "0x1F")))
put("csv/na_cell.csv", table(withcell(6, 1, "NA")))
put("csv/spaced_numbers.csv", table([[" " + r[0] + " ", r[1], r[2]] for r in good]))
put("csv/constant_column.csv", table([["1.5", r[1], r[2]] for r in good]))
put("csv/all_unlabelled.csv", table([r[:2] + [""] for r in good]))
put("csv/int_labels.csv", table([r[:2] + [{"a": "0", "b": "1", "": ""}[r[2]]] for r in good]))
put("csv/int_float_labels.csv", table([r[:2] + [{"a": "1", "b": "1.0", "": ""}[r[2]]] for r in good]))
put("csv/space_labels.csv", table([r[:2] + [{"a": "a", "b": " a", "": ""}[r[2]]] for r in good]))
put("csv/cr_only.csv", table(good, eol="\r"))
put("csv/utf16.csv", b"\xff\xfe" + table(good).encode("utf-16-le"))
put("csv/gzipped.csv", gzip.compress(table(good).encode(), mtime=0))
put("csv/cols_4097.csv", ",".join("c%d" % i for i in range(4096)) + ",label\n" + "".join(",".join(["1"] * 4096) + ",%s\n" % "ab"[i % 2] for i in range(4)))
put("csv/cats_5000.csv", "x,id,label\n" + "".join("%d,k%05d,%s\n" % (i % 7, i, "ab"[i % 2]) for i in range(5000)))
put("csv/long_line.csv", "x,y,label\n" + "1" * (12 << 20) + ",2,a\n")
put("csv/quote_in_bare_cell.csv", table(withcell(8, 1, '2"x')))
put("csv/bare_cr_in_cell.csv", table(withcell(8, 2, "a\rb")))
put("csv/label_first.csv", table([[r[2], r[0], r[1]] for r in good], header=("label", "x", "y")))
put("csv/numeric_label.csv", table(good, header=("x", "status", "label")))
put("csv/cat.csv", "x,colour,label\n" + "".join("%s,%s,%s\n" % (r[0], "red" if float(r[1]) < 0 else "blue", r[2]) for r in good))

# --- ARFF
def arff(attrs, data, rel="@relation t\n", extra=""):
    return rel + "".join(a + "\n" for a in attrs) + extra + "@data\n" + "".join(d + "\n" for d in data)
A = ["@attribute x numeric", "@attribute y numeric", "@attribute class {a, b}"]
D = [",".join([r[0], r[1], r[2] or "?"]) for r in good]
put("arff/good.arff", arff(A, D))
put("arff/no_data.arff", "@relation t\n" + "".join(a + "\n" for a in A) + "".join(d + "\n" for d in D))
put("arff/data_empty.arff", arff(A, []))
put("arff/no_attributes.arff", arff([], D))
put("arff/date_attr.arff", arff(['@attribute d date "yyyy-MM-dd"'] + A[1:], ["2020-01-0%d,%s" % (1 + i % 9, d.split(",", 1)[1]) for i, d in enumerate(D)]))
put("arff/relational.arff", arff(["@attribute bag relational", "@attribute z numeric", "@end bag"] + A[1:], D))
put("arff/integer_real.arff", arff(["@attribute x REAL", "@attribute y integer", A[2]], [",".join([r[0], str(int(float(r[1]) * 10)), r[2] or "?"]) for r in good]))
put("arff/undeclared_feature.arff", arff(["@attribute colour {red, blue}", A[1], A[2]], [("green" if i == 4 else "red") + "," + d.split(",", 1)[1] for i, d in enumerate(D)]))
put("arff/missing_nominal_feature.arff", arff(["@attribute colour {red, blue}", A[1], A[2]], [("?" if i == 4 else "red") + "," + d.split(",", 1)[1] for i, d in enumerate(D)]))
put("arff/sparse_mid.arff", arff(A, D[:10] + ["{0 1, 2 a}"] + D[10:]))
put("arff/instance_weight.arff", arff(A, D[:10] + [D[10] + ", {2}"] + D[11:]))
put("arff/comments.arff", "% head\n@relation t\n% c1\n" + "".join(a + "\n% c\n" for a in A) + "@data\n% in data\n" + "".join(d + "\n" + ("%% row %d\n" % i if i % 5 == 0 else "") for i, d in enumerate(D)))
put("arff/inline_comment.arff", arff(A, [d + " % note" for d in D]))
put("arff/quoted_names.arff", arff(["@attribute 'my x' numeric", '@attribute "my y" numeric', "@attribute 'the class' {'dark blue', 'light\\'s'}"], [d.replace(",a", ",'dark blue'").replace(",b", ",'light\\'s'") for d in D]))
put("arff/unterminated_quote.arff", arff(["@attribute 'x numeric"] + A[1:], D))
put("arff/string_class.arff", arff(A[:2] + ["@attribute class string"], D))
put("arff/label_first.arff", arff([A[2], A[0], A[1]], [",".join([r[2] or "?", r[0], r[1]]) for r in good]))
put("arff/nominal_1001.arff", arff(["@attribute f {" + ",".join("v%d" % i for i in range(1001)) + "}"] + A[1:], ["v%d,%s" % (i, d.split(",", 1)[1]) for i, d in enumerate(D)]))
put("arff/nominal_1000.arff", arff(["@attribute f {" + ",".join("v%d" % i for i in range(1000)) + "}"] + A[1:], ["v%d,%s" % (i, d.split(",", 1)[1]) for i, d in enumerate(D)]))
put("arff/class_101.arff", arff(A[:2] + ["@attribute class {" + ",".join("k%d" % i for i in range(101)) + "}"], [",".join([r[0], r[1], "k%d" % (i % 101)]) for i, r in enumerate(good)]))
put("arff/empty_braces.arff", arff(["@attribute colour {}"] + A[1:], D))
put("arff/dup_nominal.arff", arff(A[:2] + ["@attribute class {a, a, b}"], D))
put("arff/dup_attribute.arff", arff([A[0], "@attribute x numeric", A[2]], D))
put("arff/no_type.arff", arff(["@attribute x"] + A[1:], D))
put("arff/too_few.arff", arff(A, D[:3] + ["1.0,a"] + D[3:]))
put("arff/too_many.arff", arff(A, D[:3] + ["1.0,2.0,3.0,a"] + D[3:]))
put("arff/big_1e31.arff", arff(A, D[:3] + ["1e31,0,a"] + D[3:]))
put("arff/big_1e30.arff", arff(A, D[:3] + ["1e30,0,a"] + D[3:]))
put("arff/nan_value.arff", arff(A, D[:3] + ["nan,0,a"] + D[3:]))
put("arff/inf_value.arff", arff(A, D[:3] + ["-inf,0,a"] + D[3:]))
put("arff/latin1.arff", arff(A, D).encode().replace(b"@relation t", b"@relation t\xe9", 1))
put("arff/bom_crlf.arff", b"\xef\xbb\xbf" + arff(A, D).replace("\n", "\r\n").encode())
put("arff/keywords_case.arff", arff(["@ATTRIBUTE x NUMERIC", "@Attribute y Numeric", "@ATTRIBUTE class {a, b}"], D, rel="@RELATION t\n").replace("@data", "@DATA"))
put("arff/no_relation.arff", arff(A, D, rel=""))
put("arff/only_comments.arff", "% nothing\n% at all\n")
put("arff/all_unlabelled.arff", arff(A, [",".join([r[0], r[1], "?"]) for r in good]))
put("arff/unbalanced_brace.arff", arff(A[:2] + ["@attribute class {a, b"], D))
put("arff/attrs_4097.arff", arff(["@attribute c%d numeric" % i for i in range(4097)] + [A[2]], [",".join(["1"] * 4097) + ",%s" % "ab"[i % 2] for i in range(4)]))
put("arff/comma_value.arff", arff(["@attribute colour {'x,y', z}"] + A[1:], [("'x,y'" if i % 2 else "z") + "," + d.split(",", 1)[1] for i, d in enumerate(D)]))
put("arff/one_class.arff", arff(A[:2] + ["@attribute class {a}"], [",".join([r[0], r[1], "a" if r[2] else "?"]) for r in good]))
put("arff/upper_ext.ARFF", arff(A, D))
put("arff/gzip.arff", gzip.compress(arff(A, D).encode(), mtime=0))

# --- arrays for correct: X (60 x 2), P (60 x 2), labels
r = random.Random(21)
N = 60
X = [[round(r.gauss(0, 1), 4), round(r.gauss(0, 1), 4)] for _ in range(N)]
P = []
for x in X:
    p1 = round(min(0.95, max(0.05, 0.5 + 0.3 * x[0])), 4)
    P.append([round(1 - p1, 4), p1])
Y = [1 if r.random() < p[1] else 0 for p in P]
csv = lambda m: "".join(",".join(repr(v) for v in row) + "\n" for row in m)
put("arr/x.csv", "a,b\n" + csv(X))
put("arr/p.csv", csv(P))
put("arr/y.csv", "".join("%d\n" % y for y in Y))
def npy(name, descr, shape, payload, major=1, minor=0, fortran=False, header=None, hlen=None):
    if header is None:
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    pre = 10 if major == 1 else 12
    header += " " * ((64 - (pre + len(header) + 1) % 64) % 64) + "\n"
    h = header.encode("latin1")
    n = len(h) if hlen is None else hlen
    size = struct.pack("<H", n) if major == 1 else struct.pack("<I", n)
    put("arr/" + name, b"\x93NUMPY" + bytes([major, minor]) + size + h + payload)
flat = lambda m: [v for row in m for v in row]
d8 = lambda vals: struct.pack("<%dd" % len(vals), *vals)
npy("x.npy", "<f8", "(60, 2)", d8(flat(X)))
npy("p.npy", "<f8", "(60, 2)", d8(flat(P)))
npy("x_magic.npy", "<f8", "(60, 2)", d8(flat(X)))
b = open(os.path.join(fx, "arr/x_magic.npy"), "rb").read(); put("arr/x_magic.npy", b"\x93NUMPZ" + b[6:])
npy("x_v3.npy", "<f8", "(60, 2)", d8(flat(X)), major=3)
npy("x_v4.npy", "<f8", "(60, 2)", d8(flat(X)), major=4)
npy("x_v0.npy", "<f8", "(60, 2)", d8(flat(X)), major=0)
npy("x_hlen_long.npy", "<f8", "(60, 2)", d8(flat(X)), hlen=60000)
npy("x_hlen_short.npy", "<f8", "(60, 2)", d8(flat(X)), hlen=10)
npy("x_extra.npy", "<f8", "(60, 2)", d8(flat(X)) + d8([1.0]))
npy("x_i4.npy", "<i4", "(60, 2)", struct.pack("<120i", *range(120)))
npy("x_u1.npy", "|u1", "(60, 2)", bytes(range(120)))
npy("x_f2.npy", "<f2", "(60, 2)", struct.pack("<120e", *[0.5] * 120))
npy("x_b1.npy", "|b1", "(60, 2)", bytes([1, 0] * 60))
npy("x_c16.npy", "<c16", "(60, 2)", d8([0.5] * 240))
npy("x_object.npy", "|O", "(60, 2)", b"\x80\x02]q\x00." * 4)
Xf = [X[i][j] for j in range(2) for i in range(N)]
npy("x_fortran.npy", "<f8", "(60, 2)", d8(Xf), fortran=True)
npy("x_zero_rows.npy", "<f8", "(0, 2)", b"")
npy("x_zero_cols.npy", "<f8", "(60, 0)", b"")
npy("x_rank1.npy", "<f8", "(60,)", d8([x[0] for x in X]))
npy("x_rank0.npy", "<f8", "()", d8([1.0]))
npy("x_rank3.npy", "<f8", "(60, 2, 1)", d8(flat(X)))
npy("x_neg_dim.npy", "<f8", "(-1, 2)", d8(flat(X)))
npy("x_overflow_dims.npy", "<f8", "(4611686018427387904, 4)", d8(flat(X)))
npy("x_no_shape.npy", None, None, d8(flat(X)), header="{'descr': '<f8', 'fortran_order': False, }")
npy("x_extra_key.npy", None, None, d8(flat(X)), header="{'descr': '<f8', 'fortran_order': False, 'shape': (60, 2), 'foo': 1, }")
npy("x_descr_garbage.npy", "hello", "(60, 2)", d8(flat(X)))
npy("x_header_list.npy", None, None, d8(flat(X)), header="[1, 2]")
npy("x_header_code.npy", None, None, d8(flat(X)), header="{'descr': '<f8', 'fortran_order': __import__('os'), 'shape': (60, 2), }")
put("arr/x_only_magic.npy", b"\x93NUMPY")
put("arr/x_empty.npy", b"")
npy("x_inf.npy", "<f8", "(60, 2)", d8(flat(X)[:7] + [float("inf")] + flat(X)[8:]))
npy("x_nan.npy", "<f8", "(60, 2)", d8(flat(X)[:9] + [float("nan")] + flat(X)[10:]))
npy("x_1e308.npy", "<f8", "(60, 2)", d8([1e308 if i == 4 else v for i, v in enumerate(flat(X))]))
npy("x_1e39.npy", "<f8", "(60, 2)", d8([1e39 if i == 4 else v for i, v in enumerate(flat(X))]))
npy("x_f4.npy", "<f4", "(60, 2)", struct.pack("<120f", *flat(X)))
npy("x_rows59.npy", "<f8", "(59, 2)", d8(flat(X[:59])))
npy("p_big_endian.npy", ">f4", "(60, 2)", struct.pack(">120f", *flat(P)))
def prow(i, row):
    t = [list(p) for p in P]; t[i] = row; return flat(t)
npy("p_sum.npy", "<f8", "(60, 2)", d8(prow(3, [0.6, 0.6])))
npy("p_negative.npy", "<f8", "(60, 2)", d8(prow(3, [1.2, -0.2])))
npy("p_nan.npy", "<f8", "(60, 2)", d8(prow(3, [float("nan"), 0.5])))
npy("p_zero_row.npy", "<f8", "(60, 2)", d8(prow(3, [0.0, 0.0])))
npy("p_k1.npy", "<f8", "(60, 1)", d8([1.0] * 60))
npy("p_sum_1_0009.npy", "<f8", "(60, 2)", d8(prow(3, [0.5009, 0.5])))
npy("p_sum_1_0011.npy", "<f8", "(60, 2)", d8(prow(3, [0.5011, 0.5])))
npy("p_tnk.npy", "<f8", "(3, 60, 2)", d8(flat(P) * 3))
npy("p_tnk_rows59.npy", "<f8", "(3, 59, 2)", d8(flat(P[:59]) * 3))
npy("p_t0.npy", "<f8", "(0, 60, 2)", b"")
hi = [[min(1.0, p[0] * 1.5), 0] for p in P]
npy("p_tnk_unnormalised.npy", "<f8", "(2, 60, 2)", d8(prow(3, [0.9, 0.6]) + prow(3, [0.1, 0.4])))
npy("p_rank4.npy", "<f8", "(1, 3, 60, 2)", d8(flat(P) * 3))
npy("p_k101.npy", "<f8", "(60, 101)", d8([1.0 / 101] * (60 * 101)))
npy("x_1row.npy", "<f8", "(1, 2)", d8(X[0]))
npy("p_1row.npy", "<f8", "(1, 2)", d8(P[0]))
npy("y_range.npy", "<f8", "(60,)", d8([5.0 if i == 2 else float(y) for i, y in enumerate(Y)]))
npy("y_half.npy", "<f8", "(60,)", d8([0.5 if i == 2 else float(y) for i, y in enumerate(Y)]))
npy("y_negative.npy", "<f8", "(60,)", d8([-1.0 if i == 2 else float(y) for i, y in enumerate(Y)]))
npy("y_float.npy", "<f8", "(60,)", d8([float(y) for y in Y]))
npy("y_int64.npy", "<i8", "(60,)", struct.pack("<60q", *Y))
npy("y_column.npy", "<f8", "(60, 1)", d8([float(y) for y in Y]))
npy("y_rows59.npy", "<f8", "(59,)", d8([float(y) for y in Y[:59]]))
put("arr/y_unknown_name.csv", "".join(("c" if i == 4 else str(y)) + "\n" for i, y in enumerate(Y)))
put("arr/y_blank_line.csv", "".join(("" if i == 4 else str(y)) + "\n" for i, y in enumerate(Y)))
put("arr/y_two_headers.csv", "label\nclass\n" + "".join("%d\n" % y for y in Y[:58]))
put("arr/x_bom.csv", b"\xef\xbb\xbf" + ("a,b\n" + csv(X)).encode())
put("arr/p_crlf.csv", csv(P).replace("\n", "\r\n"))
put("arr/p_1e308.csv", csv([[1e308, 0.5] if i == 3 else p for i, p in enumerate(P)]))
put("arr/x_trailing_comma.csv", "".join(",".join(repr(v) for v in row) + ",\n" for row in X))
put("arr/x_empty.csv", "")
put("arr/p_header_only.csv", "neg,pos\n")
put("arr/x_semicolon.csv", "".join(";".join(repr(v) for v in row) + "\n" for row in X))
put("arr/x_spaces.csv", "".join(", ".join(" " + repr(v) for v in row) + "\n" for row in X))
put("arr/x_constant.csv", "".join("1.5,%r\n" % row[1] for row in X))
put("arr/points_ragged.csv", "x,y\n1,2\n3\n")
put("arr/points_extra.csv", "x,y\n1,2,3\n")
put("arr/points_long_line.csv", "x,y\n" + "1" * (12 << 20) + ",2\n")
put("arr/points_latin1.csv", b"x\xe9,y\n1,2\n")
# a long predictive for the signal cases (2000 rows)
XL = [[round(r.gauss(0, 1), 4), round(r.gauss(0, 1), 4)] for _ in range(2000)]
PL = []
for x in XL:
    p1 = round(min(0.95, max(0.05, 0.5 + 0.3 * x[0])), 4)
    PL.append([round(1 - p1, 4), p1])
put("arr/x_long.csv", csv(XL))
put("arr/p_long.csv", csv(PL))
put("csv/long.csv", table(rows(240, 160, seed=9)))

# --- cost matrices
C = lambda m, **kw: json.dumps(dict({"costs": m}, **kw))
put("cost/c_negative.json", C([[0, -1], [1, 0]]))
put("cost/c_diagonal.json", C([[0.5, 1], [1, 0]]))
put("cost/c_zero.json", C([[0, 0], [0, 0]]))
put("cost/c_1x1.json", C([[0]]))
put("cost/c_empty.json", C([]))
put("cost/c_number.json", '{"costs": 5}')
put("cost/c_row_object.json", '{"costs": [{"a": 1}, [1, 0]]}')
put("cost/c_referral_negative.json", C([[0, 0.1], [1, 0]], referral_cost=-0.5))
put("cost/c_referral_string.json", C([[0, 0.1], [1, 0]], referral_cost="0.2"))
put("cost/c_nan_literal.json", '{"costs": [[0, NaN], [1, 0]]}')
put("cost/c_bom.json", b"\xef\xbb\xbf" + C([[0, 0.1], [1, 0]]).encode())
put("cost/c_comment.json", '// costs\n{"costs": [[0, 0.1], [1, 0]]}')
put("cost/c_trailing_comma.json", '{"costs": [[0, 0.1], [1, 0],]}')
put("cost/c_top_array.json", '[[0, 0.1], [1, 0]]')
put("cost/c_bool.json", '{"costs": [[0, true], [1, 0]]}')
put("cost/c_tiny.json", C([[0, 1e-31], [1, 0]]))
put("cost/c_m_zero.json", C([[0, 0.1], [1, 0]], M=0))
put("cost/c_m_negative.json", C([[0, 0.1], [1, 0]], M=-1))
put("cost/c_m_null.json", C([[0, 0.1], [1, 0]], M=None))
put("cost/c_other_names.json", C([[0, 0.1], [1, 0]], classes=["a", "A"]))
put("cost/c_1e30.json", C([[0, 1e30], [1, 0]]))
put("cost/c_referral_column.json", C([[0, 1, 0.2], [1, 0, 0.2]]))
put("cost/c_utf16.json", b"\xff\xfe" + C([[0, 0.1], [1, 0]]).encode("utf-16-le"))
put("cost/c_session_format.json", C([[0, 0.1], [1, 0]], format="lcstudio-session"))
put("cost/c_unknown_nested.json", C([[0, 0.1], [1, 0]], classes=["negative", "positive"], extra={"x": 1}))
put("cost/c_null_costs.json", '{"costs": null}')
put("cost/c_string_number.json", '{"costs": [[0, "1"], [1, 0]]}')
put("cost/c_big_int.json", '{"costs": [[0, 100000000000000000000000000000000], [1, 0]]}')
put("cost/c_minus_zero.json", '{"costs": [[-0.0, 1], [1, -0]]}')
put("cost/c_three.json", C([[0, 1, 1], [1, 0, 1], [1, 1, 0]]))
put("cost/c_nul.json", b'{"costs": [[0, 0.1], [1, 0]]}\x00')
put("cost/w_tabs.cost", "2\t2\n0\t1\n1\t0\n")
put("cost/w_comments.cost", "% c\n2 2\n% mid\n0 1\n1 0\n")
put("cost/w_negative.cost", "2 2\n0 -1\n1 0\n")
put("cost/w_zero_header.cost", "0 0\n")
put("cost/w_negative_header.cost", "-2 -2\n0 1\n1 0\n")
put("cost/w_referral.cost", "2 3\n0 1 0.2\n1 0 0.2\n")
put("cost/w_trailing_garbage.cost", "2 2\n0 1\n1 0\nabc\n")
put("cost/w_crlf.cost", "2 2\r\n0 1\r\n1 0\r\n")
put("cost/w_header_only.cost", "2 2\n")
put("cost/w_1e31.cost", "2 2\n0 1e31\n1 0\n")
put("cost/w_matlab.cost", "[0 1; 1 0]\n")
put("cost/w_bom.cost", b"\xef\xbb\xbf2 2\n0 1\n1 0\n")
put("cost/w_three.cost", "3 3\n0 1 1\n1 0 1\n1 1 0\n")
put("cost/w_nul.cost", b"2 2\n0 1\x00\n1 0\n")
put("cost/w_hex.cost", "2 2\n0 0x1\n1 0\n")

# --- garbage and odd files
put("odd/garbage.bin", bytes((i * 37 + 11) % 256 for i in range(4096)))
PY

# Tiny CamVid-like folder (8x6 PNGs, 2 frames per split) for a model folder and refusals.
python3 - "$fx/cv" <<'PY' || exit 3
import os, struct, sys, zlib
d = sys.argv[1]
def png(w, h, ctype, rows):
    def chunk(t, data):
        return struct.pack('>I', len(data)) + t + data + struct.pack('>I', zlib.crc32(t + data) & 0xffffffff)
    raw = b''.join(b'\x00' + r for r in rows)
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, ctype, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
for s in ('train', 'val'):
    os.makedirs(os.path.join(d, s), exist_ok=True)
    os.makedirs(os.path.join(d, s + 'annot'), exist_ok=True)
    for i in range(2):
        open(os.path.join(d, s, 'f%d.png' % i), 'wb').write(png(8, 6, 2, [bytes([(x * 30 + y * 7 + i * 50) % 256 for x in range(8) for _ in range(3)]) for y in range(6)]))
        open(os.path.join(d, s + 'annot', 'f%d.png' % i), 'wb').write(png(8, 6, 0, [bytes([(x + y + i) % 11 for x in range(8)]) for y in range(6)]))
PY

# Helpers: a JSON file mutated by a python statement on d; a sidecar re-tied to other weights.
cat > "$tmp/bin/mut.py" <<'PY'
import json, os, sys
FX = os.environ["FX"]
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d))
PY
cat > "$tmp/bin/tie.py" <<'PY'
# tie.py SIDECAR WEIGHTS OUT [code on d]: SIDECAR's content, tied (bytes, FNV-1a) to WEIGHTS
import json, sys
d = json.load(open(sys.argv[1]))
data = open(sys.argv[2], "rb").read()
h = 0xcbf29ce484222325
for b in data:
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
d["weights"]["bytes"] = len(data)
d["weights"]["fnv1a64"] = "%016x" % h
if len(sys.argv) > 4:
    exec(sys.argv[4])
open(sys.argv[3], "w").write(json.dumps(d))
PY
export FX="$fx"
mut() { python3 "$tmp/bin/mut.py" "$@" || { echo "fault_sweep.sh: script bug in mut $*" >&2; exit 3; }; }
tie() { python3 "$tmp/bin/tie.py" "$@" || { echo "fault_sweep.sh: script bug in tie $*" >&2; exit 3; }; }

# Fixtures the CLI makes: models, sessions, a sweep, a CamVid model folder.
SQ=(--replicates 1 --methods sghmc --correction-iterations 20 --warm-start-steps 5 --threads 1 --quiet)
TQ=(--replicates 1 --methods kfac_laplace --correction-iterations 10 --warm-start-steps 5 --threads 1 --quiet)
CQ=(--correction-iterations 20 --warm-start-steps 5 --quiet)
setup() {
  (cd "$tmp" && "$cli" "$@") > "$tmp/setup.log" 2>&1 < /dev/null ||
    { echo "fault_sweep.sh: setup failed: $(show "$@")" >&2; tail -5 "$tmp/setup.log" >&2; exit 3; }
}
echo "fault_sweep.sh: $cli, work folder $tmp: making fixtures"
A="$fx/arr"
setup synthetic --replicates 1 --methods sghmc,kfac_laplace --correction-iterations 20 --warm-start-steps 5 --threads 1 --quiet --save-models "$fx/models"
setup tabular --data "$fx/csv/cat.csv" "${TQ[@]}" --save-models "$fx/tmodels"
setup correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$fx/own_res"
setup correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --q-form standalone --out "$fx/own_std"
mkdir -p "$fx/sess"
setup synthetic "${SQ[@]}" --write-session "$fx/sess/syn.lcsession"
setup tabular --data "$fx/csv/good.csv" "${TQ[@]}" --write-session "$fx/sess/tab.lcsession"
setup correct --features "$A/x.csv" --predictive "$A/p.csv" --labels "$A/y.csv" "${CQ[@]}" --write-session "$fx/sess/cor.lcsession"
setup synthetic "${SQ[@]}" --json "$fx/sess/results_syn.json"
setup synthetic --replicates 20 --threads 1 --write-session "$fx/sess/syn_long.lcsession"
setup sweep plan "$fx/sess/syn.lcsession" --over seed=0..1 --out "$fx/sweep_ok"
setup sweep run "$fx/sweep_ok" --quiet
setup sweep plan "$fx/sess/syn_long.lcsession" --over seed=0..1 --out "$fx/sweep_long"
setup camvid train --data "$fx/cv" --out "$fx/cvm" --preset demo --max-train 2 --epochs 1 --correction-epochs 1 \
  --methods mc_dropout,cw_sgd,sghmc_s,ours --threads 1 --quiet
q="$fx/models/sghmc_r0_q.pt"            # a synthetic q (2 inputs)
qmap="$fx/models/kfac_laplace_r0_map.pt"
tq="$fx/tmodels/kfac_laplace_r0_q.pt"   # a tabular q (x, colour: 3 inputs)
rq="$fx/own_res/q.pt"                   # correct's residual q: forward(x, p)
sq="$fx/own_std/q.pt"                   # correct's standalone q
for f in "$q" "$qmap" "$tq" "$rq" "$sq" "$fx/sess/syn.lcsession" "$fx/sess/tab.lcsession" "$fx/sess/cor.lcsession" \
         "$fx/sweep_ok/sweep.json" "$fx/cvm/camvid.json"; do
  [ -f "$f" ] || { echo "fault_sweep.sh: setup did not write $f" >&2; exit 3; }
done

# The case's folder-to-be, with old outputs of known content: $C/old.json, $C/old.csv.
prep() {
  C="$cases/$(printf '%03d' $((ncase + 1)))"
  mkdir -p "$C"
  printf '{"old": true}\n' > "$C/old.json"
  printf 'old,csv\n' > "$C/old.csv"
}

# same REF NEW WHAT: after an accepted case, NEW (an output) must equal REF (the output of
# the same data in a plain spelling); else the case was SILENT (the data was misread).
same() {
  [ -f "$2" ] || return 0
  cmp -s "$1" "$2" && return 0
  awk -F'\t' -v OFS='\t' -v n="$(printf '%03d' "$ncase")" -v why="SILENT: $3: $(basename "$2") differs from the plain file's; " \
    '$1 == n && $3 == "pass" {$3 = "SILENT"; $6 = why $6} {print}' "$results" > "$results.new" && mv "$results.new" "$results"
  echo "           (amended: SILENT: $3)"
}

# ---------------------------------------------------------------- CSV tables (tabular --data)
# tab FAMILY EXPECT FILE [tabular flags]: the message must name FILE; --json's old file survives.
tab() {
  local fam="$1" e="$2" f="$3"
  shift 3
  prep
  case_ "$fam" "$e" -n "$(basename "$f")" -k "$C/old.json" -k "$C/old.csv" -a "$C/models" -- \
    tabular --data "$f" "${TQ[@]}" --json "$C/old.json" --csv "$C/old.csv" --save-models "$C/models" "$@"
}
# tabf EXPECT FLAG ARGS...: a flag's value refused, naming the flag (or quoting the value).
tabf() {
  local e="$1" flag="$2"
  shift 2
  prep
  case_ csv "$e" -n "$flag" -n "\"${*: -1}\"" -k "$C/old.json" -- tabular --data "$fx/csv/good.csv" "${TQ[@]}" --json "$C/old.json" "$@"
}
if want_family csv; then
  d="$fx/csv"
  tab csv ok  "$d/bom.csv"
  tab csv ok  "$d/crlf.csv"
  tab csv ok  "$d/bom_crlf_quoted.csv"
  tab csv ok  "$d/quoted_comma_label.csv"
  tab csv any "$d/quoted_newline_label.csv"   # RFC 4180: a line break inside a quoted label
  tab csv bad "$d/quoted_newline_number.csv"
  tab csv ok  "$d/doubled_quote.csv"
  tab csv bad "$d/ragged_long.csv"
  tab csv bad "$d/trailing_comma_rows.csv"
  tab csv bad "$d/header_trailing_comma.csv"
  tab csv bad "$d/empty.csv"
  tab csv bad "$d/header_only_crlf.csv"
  tab csv bad "$d/whitespace_only.csv"
  tab csv any "$d/blank_lines.csv"
  tab csv ok  "$d/no_final_newline.csv"
  tab csv any "$d/big_one.csv"        # 1e308 is finite: refused, or nothing non-finite printed
  tab csv any "$d/big_both.csv"       # 1e308 and -1e308 in one column: the std overflows
  tab csv bad "$d/overflow_text.csv"
  tab csv bad "$d/inf_text.csv"
  tab csv bad "$d/minus_infinity.csv"
  tab csv bad "$d/nan_cell.csv"
  tab csv any "$d/all_inf_column.csv"
  tab csv bad "$d/dup_feature.csv"
  tab csv any "$d/dup_case.csv"
  tab csv bad "$d/empty_label_name.csv"
  tab csv bad "$d/one_labelled.csv"
  tab csv bad "$d/one_row.csv"
  tab csv any "$d/two_rows.csv"
  tab csv any "$d/four_rows.csv"
  tab csv any "$d/classes_150.csv"
  tab csv ok  "$d/classes_5.csv"
  tab csv bad "$d/latin1_header.csv"
  tab csv bad "$d/latin1_feature.csv"
  tab csv bad "$d/overlong_utf8.csv"
  tab csv ok  "$d/utf8_labels.csv"
  tab csv any "$d/long_cell.csv"
  tab csv bad "$d/nul_cell.csv"
  tab csv any "$d/nul_header.csv"     # NUL is UTF-8; a header cell "x\0" is odd, not invalid
  tab csv bad "$d/nul_only.csv"
  tab csv bad "$d/semicolon.csv"
  tab csv bad "$d/tab.csv"
  tab csv bad "$d/thousands.csv"
  tab csv bad "$d/hex.csv"
  tab csv bad "$d/na_cell.csv"
  tab csv any "$d/spaced_numbers.csv"
  tab csv ok  "$d/constant_column.csv"
  tab csv bad "$d/all_unlabelled.csv"
  tab csv ok  "$d/int_labels.csv"
  tab csv any "$d/int_float_labels.csv"
  tab csv any "$d/space_labels.csv"
  tab csv any "$d/cr_only.csv"
  tab csv bad "$d/utf16.csv"
  tab csv bad "$d/gzipped.csv"
  tab csv bad "$d/cols_4097.csv"
  tab csv bad "$d/cats_5000.csv"
  tab csv any "$d/long_line.csv"
  tab csv any "$d/quote_in_bare_cell.csv"
  tab csv any "$d/bare_cr_in_cell.csv"
  tab csv ok  "$d/label_first.csv"
  tab csv any "$d/numeric_label.csv" --label status
  tab csv any "$d/good.csv" --label x
  tabf any --label --label ""
  tabf bad --label --label "x,y"
  prep; mkfifo "$C/fifo.csv"
  case_ csv bad -t 20 -n fifo.csv -- tabular --data "$C/fifo.csv" "${TQ[@]}"
  case_ csv bad -t 20 -n /dev/zero -- tabular --data /dev/zero "${TQ[@]}"
  prep; ln -s "$d/good.csv" "$C/link.csv"
  case_ csv ok -- tabular --data "$C/link.csv" "${TQ[@]}"
  prep; ln -s "$C/nowhere.csv" "$C/dangling.csv"
  case_ csv bad -n dangling.csv -- tabular --data "$C/dangling.csv" "${TQ[@]}"
  tabf bad --test-fraction --test-fraction 0
  tabf bad --test-fraction --test-fraction 1
  tabf bad --test-fraction --test-fraction -0.1
  tabf bad --test-fraction --test-fraction nan
  tabf bad --test-fraction --test-fraction 0.3x
  tabf any --test-fraction --test-fraction 1e-9
  tabf ok  --test-fraction --test-fraction 0.05
  tabf bad --validation-fraction --test-fraction 0.5 --validation-fraction 0.5
  tabf bad --validation-fraction --validation-fraction 1
  tabf ok  --validation-fraction --validation-fraction 0
  tabf bad --width --width 0
  tabf bad --depth --depth 1000000
fi

# ---------------------------------------------------------------- Weka ARFF (tabular --data)
if want_family arff; then
  d="$fx/arff"
  tab arff bad "$d/no_data.arff"
  tab arff bad "$d/data_empty.arff"
  tab arff bad "$d/no_attributes.arff"
  tab arff bad "$d/date_attr.arff"
  tab arff bad "$d/relational.arff"
  tab arff ok  "$d/integer_real.arff"
  tab arff bad "$d/undeclared_feature.arff"
  tab arff bad "$d/missing_nominal_feature.arff"
  tab arff bad "$d/sparse_mid.arff"
  tab arff bad "$d/instance_weight.arff"
  tab arff ok  "$d/comments.arff"
  tab arff any "$d/inline_comment.arff"
  tab arff ok  "$d/quoted_names.arff"
  tab arff bad "$d/unterminated_quote.arff"
  tab arff bad "$d/string_class.arff"
  tab arff ok  "$d/label_first.arff" --label class
  tab arff bad "$d/good.arff" --label x
  tab arff bad "$d/nominal_1001.arff"
  tab arff ok  "$d/nominal_1000.arff"
  tab arff bad "$d/class_101.arff"
  tab arff bad "$d/empty_braces.arff"
  tab arff bad "$d/dup_nominal.arff"
  tab arff bad "$d/dup_attribute.arff"
  tab arff bad "$d/no_type.arff"
  tab arff bad "$d/too_few.arff"
  tab arff bad "$d/too_many.arff"
  tab arff bad "$d/big_1e31.arff"
  tab arff ok  "$d/big_1e30.arff"
  tab arff bad "$d/nan_value.arff"
  tab arff bad "$d/inf_value.arff"
  tab arff bad "$d/latin1.arff"
  tab arff ok  "$d/bom_crlf.arff"
  tab arff ok  "$d/keywords_case.arff"
  tab arff any "$d/no_relation.arff"
  tab arff bad "$d/only_comments.arff"
  tab arff bad "$d/all_unlabelled.arff"
  tab arff bad "$d/unbalanced_brace.arff"
  tab arff bad "$d/attrs_4097.arff"
  tab arff ok  "$d/comma_value.arff"
  tab arff bad "$d/one_class.arff"
  tab arff any "$d/upper_ext.ARFF"
  tab arff bad "$d/gzip.arff"
  prep
  case_ arff bad -n one_class.arff -- check "$d/one_class.arff"
  case_ arff bad -n nominal_1001.arff -- check "$d/nominal_1001.arff"
  case_ arff bad -n sparse_mid.arff -- check "$d/sparse_mid.arff"
  case_ arff ok -- check "$d/quoted_names.arff"
fi

# ---------------------------------------------------------------- arrays: correct, check, decide
# corr EXPECT TOKEN FEATURES PREDICTIVE [correct flags]: the old --json survives, --out is
# all or nothing.
corr() {
  local e="$1" tkn="$2" x="$3" p="$4"
  shift 4
  prep
  case_ arrays "$e" -n "$tkn" -k "$C/old.json" -a "$C/out" -- \
    correct --features "$x" --predictive "$p" "${CQ[@]}" --json "$C/old.json" --out "$C/out" "$@"
}
if want_family arrays; then
  x="$A/x.npy"; p="$A/p.npy"
  corr ok  x.npy "$x" "$p"
  ref="$C/out/decisions.csv"
  for f in x_magic x_v4 x_v0 x_hlen_long x_hlen_short x_extra x_i4 x_u1 x_f2 x_b1 x_c16 x_object \
           x_zero_rows x_zero_cols x_rank0 x_rank3 x_neg_dim x_overflow_dims x_no_shape x_descr_garbage \
           x_header_list x_header_code x_only_magic x_empty x_inf x_nan x_1e39 x_rows59; do
    corr bad "$f.npy" "$A/$f.npy" "$p"
  done
  corr any x_v3.npy "$A/x_v3.npy" "$p"            # format 3.0 is numpy's (UTF-8 header)
  corr any x_fortran.npy "$A/x_fortran.npy" "$p"  # read in Fortran order, or refused
  same "$ref" "$C/out/decisions.csv" "fortran_order True read as C order"
  corr any x_rank1.npy "$A/x_rank1.npy" "$p"      # N features of 1, or refused
  corr any x_extra_key.npy "$A/x_extra_key.npy" "$p"
  corr any x_1e308.npy "$A/x_1e308.npy" "$p"      # finite in double, not in float32
  corr ok  x_f4.npy "$A/x_f4.npy" "$p"
  for f in p_big_endian p_sum p_negative p_nan p_zero_row p_sum_1_0011 p_tnk_rows59 p_t0 p_rank4; do
    corr bad "$f.npy" "$x" "$A/$f.npy"
  done
  corr ok  p_sum_1_0009.npy "$x" "$A/p_sum_1_0009.npy"
  corr ok  p_tnk.npy "$x" "$A/p_tnk.npy"   # three equal samples: P itself
  corr any p_tnk_unnormalised.npy "$x" "$A/p_tnk_unnormalised.npy"   # each sample's rows must sum to 1?
  corr any p_k1.npy "$x" "$A/p_k1.npy"
  corr any p_k101.npy "$x" "$A/p_k101.npy"
  prep   # one row: too few to hold any out; refused (2), naming the input or the share
  case_ arrays bad -n x_1row.npy -n --features -n held-out -k "$C/old.json" -a "$C/out" -- \
    correct --features "$A/x_1row.npy" --predictive "$A/p_1row.npy" "${CQ[@]}" --json "$C/old.json" --out "$C/out"
  for f in y_range y_half y_negative y_rows59; do
    corr bad "$f.npy" "$x" "$p" --labels "$A/$f.npy"
  done
  corr ok  y_float.npy "$x" "$p" --labels "$A/y_float.npy"
  corr any y_int64.npy "$x" "$p" --labels "$A/y_int64.npy"
  corr any y_column.npy "$x" "$p" --labels "$A/y_column.npy"
  corr bad y_unknown_name.csv "$x" "$p" --labels "$A/y_unknown_name.csv"
  corr bad y_blank_line.csv "$x" "$p" --labels "$A/y_blank_line.csv"
  corr bad y_two_headers.csv "$x" "$p" --labels "$A/y_two_headers.csv"
  corr ok  x_csv.csv "$A/x.csv" "$A/p.csv"
  refcsv="$C/out/decisions.csv"
  corr ok  x_bom.csv "$A/x_bom.csv" "$A/p.csv"
  same "$refcsv" "$C/out/decisions.csv" "a byte-order mark changed what was read"
  corr ok  p_crlf.csv "$A/x.csv" "$A/p_crlf.csv"
  same "$refcsv" "$C/out/decisions.csv" "CRLF line ends changed what was read"
  corr bad p_1e308.csv "$A/x.csv" "$A/p_1e308.csv"
  corr bad x_trailing_comma.csv "$A/x_trailing_comma.csv" "$A/p.csv"
  corr bad x_empty.csv "$A/x_empty.csv" "$A/p.csv"
  corr bad p_header_only.csv "$A/x.csv" "$A/p_header_only.csv"
  corr bad x_semicolon.csv "$A/x_semicolon.csv" "$A/p.csv"
  corr any x_spaces.csv "$A/x_spaces.csv" "$A/p.csv"
  same "$refcsv" "$C/out/decisions.csv" "spaces around the numbers changed what was read"
  corr ok  x_constant.csv "$A/x_constant.csv" "$A/p.csv"
  corr bad p_k1.npy "$x" "$p" --labels "$A/y.csv" --test-features "$x" --test-predictive "$A/p_k1.npy" --test-labels "$A/y.csv"
  # The same readers through check.
  for f in x_magic x_v4 x_hlen_long x_extra x_u1 x_object x_zero_rows x_overflow_dims x_empty x_no_shape x_header_code; do
    case_ arrays bad -n "$f.npy" -- check "$A/$f.npy"
  done
  case_ arrays ok -- check "$A/p_tnk.npy"
  case_ arrays bad -n p_rank4.npy -- check "$A/p_rank4.npy"
  case_ arrays bad -n x_inf.npy -- check "$A/x.npy" "$A/x_inf.npy" "$A/p.npy"
  # decide --points: rows as CSV
  case_ arrays bad -n points_ragged.csv -- decide --model "$q" --points "$A/points_ragged.csv"
  case_ arrays bad -n points_extra.csv -- decide --model "$q" --points "$A/points_extra.csv"
  case_ arrays bad -n points_long_line.csv -- decide --model "$q" --points "$A/points_long_line.csv"
  case_ arrays any -n points_latin1.csv -- decide --model "$q" --points "$A/points_latin1.csv"
  case_ arrays bad -n x_magic.npy -- decide --model "$q" --points "$A/x_magic.npy"
  prep; mkfifo "$C/points.csv"
  case_ arrays bad -t 20 -n points.csv -- decide --model "$q" --points "$C/points.csv"
  case_ arrays bad -t 20 -n /dev/zero -- decide --model "$q" --points /dev/zero
  case_ arrays ok -- decide --model "$q" --point 1e38,-1e38
  case_ arrays bad -n --point -- decide --model "$q" --point=1,2 --point
fi

# ---------------------------------------------------------------- cost matrices (JSON, Weka)
cost() {  # cost EXPECT FILE: synthetic --costs FILE; the old --json survives a refusal
  local e="$1" f="$2"
  prep
  case_ costs "$e" -n "$(basename "$f")" -k "$C/old.json" -- synthetic "${SQ[@]}" --costs "$f" --json "$C/old.json"
}
if want_family costs; then
  d="$fx/cost"
  for f in c_negative c_1x1 c_empty c_number c_row_object c_referral_negative c_referral_string \
           c_nan_literal c_comment c_trailing_comma c_bool c_tiny c_m_zero c_m_negative c_utf16 \
           c_session_format c_unknown_nested c_null_costs c_string_number c_big_int c_three c_nul; do
    cost bad "$d/$f.json"
  done
  cost any "$d/c_diagonal.json"     # a cost for the right decision: allowed, or refused
  cost any "$d/c_zero.json"         # all zero: M = 0; refused, or nothing non-finite
  cost any "$d/c_bom.json"
  cost any "$d/c_top_array.json"
  cost ok  "$d/c_m_null.json"
  cost any "$d/c_other_names.json"  # names other than the experiment's classes
  cost any "$d/c_1e30.json"         # the largest allowed cost
  cost ok  "$d/c_referral_column.json"
  cost ok  "$d/c_minus_zero.json"
  for f in w_negative w_zero_header w_negative_header w_trailing_garbage w_header_only w_1e31 w_three w_nul w_hex; do
    cost bad "$d/$f.cost"
  done
  for f in w_tabs w_comments w_referral w_crlf; do
    cost ok "$d/$f.cost"
  done
  cost any "$d/w_matlab.cost"       # Weka's one-line Matlab form
  cost any "$d/w_bom.cost"
  # The same matrices where other commands read them.
  prep
  case_ costs bad -n w_three.cost -n "cost matrix" -k "$C/old.json" -- tabular --data "$fx/csv/good.csv" "${TQ[@]}" --costs "$d/w_three.cost" --json "$C/old.json"
  prep
  case_ costs bad -n c_three.json -n "cost matrix" -a "$C/out" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --costs "$d/c_three.json" --out "$C/out"
  prep
  case_ costs ok -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --costs "$d/w_referral.cost" --out "$C/out"
  case_ costs bad -n c_negative.json -- decide --model "$q" --point 1,2 --costs "$d/c_negative.json"
  case_ costs bad -n w_1e31.cost -- decide --model "$q" --point 1,2 --costs "$d/w_1e31.cost"
  case_ costs bad -n c_referral_negative.json -- check "$d/c_referral_negative.json"
  case_ costs bad -n w_trailing_garbage.cost -- check "$d/w_trailing_garbage.cost"
  case_ costs bad -n c_tiny.json -- check "$d/c_tiny.json"
  case_ costs any -n --referral -- synthetic "${SQ[@]}" --costs "$d/c_referral_column.json" --referral 0.3
  case_ costs bad -n --referral -- synthetic "${SQ[@]}" --referral inf
  case_ costs bad -n --referral -- synthetic "${SQ[@]}" --referral 1e31
  prep
  case_ costs bad -w 20 -n c_three.json -n "cost matrix" -k "$C/old.json" -- camvid eval --data "$fx/cv" --model "$fx/cvm" --costs "$d/c_three.json" --json "$C/old.json" --quiet
  prep
  case_ costs bad -w 20 -n c_three.json -n "cost matrix" -a "$C/m" -- camvid train --data "$fx/cv" --out "$C/m" --preset demo --costs "$d/c_three.json" --quiet
  case_ costs bad -w 20 -n c_three.json -n "cost matrix" -- corruption --data fashion-mnist --costs "$d/c_three.json" --quiet
  case_ costs bad -w 20 -n c_three.json -n "cost matrix" -- selective --data fashion-mnist --costs "$d/c_three.json" --quiet
fi

# ---------------------------------------------------------------- sessions: check and run agree
# sess FILE EXPECT_CHECK EXPECT_RUN [TOKEN]: `check FILE`, then `run FILE` (a run still
# working after 10 s was accepted: stopped by SIGTERM, its old --json must survive); the
# two verdicts (check exit 0 / run not refused) must agree.
nsess=0
: > "$tmp/diverge.tsv"
sess() {
  local f="$1" ec="$2" er="$3" t
  local -a tk=() opts=(-n "$(basename "$f")")
  IFS='|' read -ra tk <<< "${4:-}"
  for t in "${tk[@]}"; do opts+=(-n "$t"); done
  case_ sessions "$ec" -t 40 "${opts[@]}" -- check "$f"
  local crc=$LAST_RC cid=$ncase
  prep
  case_ sessions "$er" -w 10 -t 40 "${opts[@]}" -k "$C/old.json" -- run "$f" --json "$C/old.json" --quiet
  local rrc=$LAST_RC rid=$ncase
  nsess=$((nsess + 1))
  local cv rv
  case "$crc" in 0) cv=accepted ;; 2) cv=refused ;; *) cv="exit $crc" ;; esac
  case "$rrc" in 0|1) rv=accepted ;; 2) rv=refused ;; *) rv="exit $rrc" ;; esac
  [ "$LAST_WORKING" = 1 ] && rv="accepted (still working after 10 s)"
  if [ "${cv%% *}" != "${rv%% *}" ]; then
    printf '%s\t%s\t%s\t%s\t%s\n' "$(printf '%03d' "$cid")" "$(printf '%03d' "$rid")" "${f//$tmp/\$T}" "check: $cv" "run: $rv" >> "$tmp/diverge.tsv"
  fi
}
if want_family sessions; then
  S="$fx/sess2"
  mkdir -p "$S"
  syn="$fx/sess/syn.lcsession"; tabs="$fx/sess/tab.lcsession"; cors="$fx/sess/cor.lcsession"
  ten='{"costs": [[0,1,1,1,1,1,1,1,1,1],[1,0,1,1,1,1,1,1,1,1],[1,1,0,1,1,1,1,1,1,1],[1,1,1,0,1,1,1,1,1,1],[1,1,1,1,0,1,1,1,1,1],[1,1,1,1,1,0,1,1,1,1],[1,1,1,1,1,1,0,1,1,1],[1,1,1,1,1,1,1,0,1,1],[1,1,1,1,1,1,1,1,0,1],[1,1,1,1,1,1,1,1,1,0]]}'
  mk() { mut "$2" "$S/$1.lcsession" "$3"; }
  mk good_syn "$syn" 'pass'
  mk good_tab "$tabs" 'pass'
  mk good_cor "$cors" 'pass'
  mk tab_missing_data "$tabs" 'd["settings"]["data"] += ".missing"'
  mk tab_ragged_data "$tabs" 'd["settings"]["data"] = FX + "/csv/ragged_long.csv"'
  mk tab_mixed_data "$tabs" 'd["settings"]["data"] = FX + "/csv/hex.csv"'
  mk tab_one_class_data "$tabs" 'd["settings"]["data"] = FX + "/arff/one_class.arff"'
  mk tab_label_missing "$tabs" 'd["settings"]["label"] = "status"'
  mk tab_test_fraction "$tabs" 'd["settings"]["test_fraction"] = 0.99'
  mk tab_data_folder "$tabs" 'd["settings"]["data"] = FX + "/csv"'
  mk tab_costs_three "$tabs" 'd["cost_matrix"] = {"costs": [[0, 1, 1], [1, 0, 1], [1, 1, 0]]}'
  mk tab_costs_names "$tabs" 'd["cost_matrix"]["classes"] = ["x", "y"]'
  mut "$tabs" "$fx/csv/relative.lcsession" 'd["settings"]["data"] = "good.csv"'
  mk cor_rows "$cors" 'd["settings"]["features"] = FX + "/arr/x_rows59.npy"'
  mk cor_psum "$cors" 'd["settings"]["predictive"] = FX + "/arr/p_sum.npy"'
  mk cor_labels_range "$cors" 'd["settings"]["labels"] = FX + "/arr/y_range.npy"'
  mk cor_missing_pred "$cors" 'd["settings"]["predictive"] = "/nonexistent/p.csv"'
  mk cor_no_pred "$cors" 'del d["settings"]["predictive"]'
  mk cor_test_partial "$cors" 'd["settings"]["test_features"] = FX + "/arr/x.csv"'
  mk cor_big_endian "$cors" 'd["settings"]["predictive"] = FX + "/arr/p_big_endian.npy"'
  mk syn_replicates_big "$syn" 'd["settings"]["replicates"] = 100000'
  mk syn_methods_empty "$syn" 'd["settings"]["methods"] = []'
  mk syn_methods_string "$syn" 'd["settings"]["methods"] = "sghmc"'
  mk syn_lr_negative "$syn" 'd["settings"]["correction_lr"] = -1'
  mk syn_lr_nan_string "$syn" 'd["settings"]["correction_lr"] = "nan"'
  mk syn_lr_infinity "$syn" 'd["settings"]["correction_lr"] = float("inf")'
  sed 's/Infinity/1e999/' "$S/syn_lr_infinity.lcsession" > "$S/syn_lr_1e999.lcsession"
  mk syn_threads_zero "$syn" 'd["settings"]["threads"] = 0'
  mk syn_grid_one "$syn" 'd["settings"]["grid_resolution"] = 1'
  mk syn_device_cuda "$syn" 'd["settings"]["device"] = "cuda:0"'
  mk syn_replicates_null "$syn" 'd["settings"]["replicates"] = None'
  mk syn_seed_float "$syn" 'd["settings"]["seed"] = 1.0'
  mk syn_seed_negative "$syn" 'd["settings"]["seed"] = -1'
  mk syn_referral "$syn" 'd["cost_matrix"] = {"costs": [[0, 0.1, 0.05], [1, 0, 0.05]]}'
  mk syn_costs_string "$syn" 'd["cost_matrix"] = "costs.json"'
  mk version_zero "$syn" 'd["version"] = 0'
  mk version_string "$syn" 'd["version"] = "3"'
  mk version_fraction "$syn" 'd["version"] = 2.5'
  mk experiment_case "$syn" 'd["experiment"] = "Synthetic"'
  mk data_paths_unknown "$syn" 'd["data_paths"] = {"foo": "/x"}'
  mk huge "$syn" 'd["settings"]["pad"] = "x" * (20 << 20)'
  printf '{}' > "$S/empty_object.lcsession"
  : > "$S/empty_file.lcsession"
  cp "$fx/odd/garbage.bin" "$S/garbage.lcsession"
  printf '[]' > "$S/array.lcsession"
  head -c 100 "$syn" > "$S/truncated.lcsession"
  { printf '\xef\xbb\xbf'; cat "$syn"; } > "$S/bom.lcsession"
  { cat "$syn"; printf '\0{"settings": '; } > "$S/nul_tail.lcsession"
  mkdir -p "$S/folder.lcsession"
  python3 -c 'print("{\"format\": \"lcstudio-session\", \"version\": 3, \"experiment\": \"synthetic\", \"settings\": {\"methods\": " + "[" * 5000 + "]" * 5000 + "}, \"cost_matrix\": {\"costs\": [[0, 1], [1, 0]]}}")' > "$S/deep.lcsession"
  mut "$fx/sess/results_syn.json" "$S/results_methods.json" 'd["run"]["settings"]["methods"] = ["nuts"]'
  cp "$fx/sess/results_syn.json" "$S/results_good.json"
  img() {  # img NAME EXPERIMENT DATA [MATRIX]
    printf '{"format": "lcstudio-session", "version": 3, "experiment": "%s", "settings": {"data": "%s"}, "cost_matrix": %s}\n' \
      "$2" "$3" "${4:-$ten}" > "$S/$1.lcsession"
  }
  mkdir -p "$S/mnist_short"
  mnist_short "$S/mnist_short"
  img img_nodata corruption /nonexistent/mnist
  img img_garbage_folder corruption "$fx/odd"
  img img_short_idx corruption "$S/mnist_short"
  img sel_nodata selective /nonexistent/mnist
  img camvid_fake camvid "$fx/odd" '{"costs": [[0, 1], [1, 0]]}'
  [ -d /work/shared/datasets/camvid ] &&
    img camvid_real_two_classes camvid /work/shared/datasets/camvid '{"costs": [[0, 1], [1, 0]]}'

  sess "$S/good_syn.lcsession" ok ok
  sess "$S/good_tab.lcsession" ok ok
  sess "$S/good_cor.lcsession" ok ok
  sess "$S/tab_missing_data.lcsession" bad bad good.csv.missing
  sess "$S/tab_ragged_data.lcsession" bad bad ragged_long.csv
  sess "$S/tab_mixed_data.lcsession" bad bad hex.csv
  sess "$S/tab_one_class_data.lcsession" bad bad one_class.arff
  sess "$S/tab_label_missing.lcsession" bad bad status
  sess "$S/tab_test_fraction.lcsession" bad bad test_fraction
  sess "$S/tab_data_folder.lcsession" bad bad "data|$fx/csv"
  sess "$S/tab_costs_three.lcsession" bad bad "cost_matrix|cost matrix"
  sess "$S/tab_costs_names.lcsession" bad bad "cost_matrix|cost matrix"
  sess "$fx/csv/relative.lcsession" any any good.csv
  sess "$S/cor_rows.lcsession" bad bad x_rows59.npy
  sess "$S/cor_psum.lcsession" bad bad p_sum.npy
  sess "$S/cor_labels_range.lcsession" bad bad y_range.npy
  sess "$S/cor_missing_pred.lcsession" bad bad /nonexistent/p.csv
  sess "$S/cor_no_pred.lcsession" bad bad predictive
  sess "$S/cor_test_partial.lcsession" bad bad test
  sess "$S/cor_big_endian.lcsession" bad bad p_big_endian.npy
  sess "$S/syn_replicates_big.lcsession" bad bad replicates
  sess "$S/syn_methods_empty.lcsession" bad bad methods
  sess "$S/syn_methods_string.lcsession" any any methods
  sess "$S/syn_lr_negative.lcsession" bad bad correction_lr
  sess "$S/syn_lr_nan_string.lcsession" bad bad correction_lr
  sess "$S/syn_lr_infinity.lcsession" bad bad correction_lr
  sess "$S/syn_lr_1e999.lcsession" bad bad correction_lr
  sess "$S/syn_threads_zero.lcsession" bad bad threads
  sess "$S/syn_grid_one.lcsession" bad bad grid_resolution
  # cuda:0 on a machine without CUDA: the flag is refused (2), so the session must be too.
  if ! "$cli" synthetic --device cuda:0 --write-session "$tmp/cuda_probe.lcsession" > /dev/null 2>&1; then
    sess "$S/syn_device_cuda.lcsession" bad bad "device|cuda:0"
  else
    sess "$S/syn_device_cuda.lcsession" ok ok
  fi
  sess "$S/syn_replicates_null.lcsession" any any replicates
  sess "$S/syn_seed_float.lcsession" any any seed
  sess "$S/syn_seed_negative.lcsession" bad bad seed
  sess "$S/syn_referral.lcsession" ok ok
  sess "$S/syn_costs_string.lcsession" bad bad cost_matrix
  sess "$S/version_zero.lcsession" bad bad version
  sess "$S/version_string.lcsession" bad bad version
  sess "$S/version_fraction.lcsession" bad bad version
  sess "$S/experiment_case.lcsession" bad bad Synthetic
  sess "$S/data_paths_unknown.lcsession" any any data_paths
  sess "$S/huge.lcsession" bad bad huge.lcsession
  sess "$S/empty_object.lcsession" bad bad format
  sess "$S/empty_file.lcsession" bad bad empty_file.lcsession
  sess "$S/garbage.lcsession" bad bad garbage.lcsession
  sess "$S/array.lcsession" bad bad array.lcsession
  sess "$S/truncated.lcsession" bad bad truncated.lcsession
  sess "$S/bom.lcsession" any any bom.lcsession
  sess "$S/nul_tail.lcsession" bad bad nul_tail.lcsession
  sess "$S/folder.lcsession" bad bad folder.lcsession
  sess "$S/deep.lcsession" bad bad deep.lcsession
  sess "$S/results_methods.json" bad bad nuts
  sess "$S/results_good.json" ok ok
  sess "$S/img_nodata.lcsession" bad bad /nonexistent/mnist
  sess "$S/img_garbage_folder.lcsession" bad bad odd
  sess "$S/img_short_idx.lcsession" bad bad train-images-idx3-ubyte
  sess "$S/sel_nodata.lcsession" bad bad /nonexistent/mnist
  sess "$S/camvid_fake.lcsession" bad bad odd
  [ -f "$S/camvid_real_two_classes.lcsession" ] && sess "$S/camvid_real_two_classes.lcsession" bad bad "cost_matrix|cost matrix"
  # A session's input named by a FIFO: refused, never a hang (no work cap: a blocked read is no work).
  mkfifo "$S/fifo.csv"
  mk tab_data_fifo "$tabs" 'd["settings"]["data"] = FX + "/sess2/fifo.csv"'
  case_ sessions bad -t 20 -n fifo.csv -- check "$S/tab_data_fifo.lcsession"
  case_ sessions bad -t 20 -n fifo.csv -- run "$S/tab_data_fifo.lcsession" --quiet
  mkfifo "$S/fifo.lcsession"
  case_ sessions bad -t 20 -n fifo.lcsession -- check "$S/fifo.lcsession"
  case_ sessions bad -t 20 -n fifo.lcsession -- run "$S/fifo.lcsession" --quiet
  # run's --data override is checked as the session's own data.
  prep
  case_ sessions bad -n ragged_long.csv -k "$C/old.json" -- run "$S/good_tab.lcsession" --data "$fx/csv/ragged_long.csv" --json "$C/old.json" --quiet
  prep
  case_ sessions bad -n data -k "$C/old.json" -- run "$S/good_tab.lcsession" --data "" --json "$C/old.json" --quiet
fi

# ---------------------------------------------------------------- saved models (.pt + .pt.json)
# Weights tied to a sidecar by size and FNV-1a: the "fixed" cases re-tie a bad or foreign
# weights file so that the loader itself (TorchScript) meets it.
if want_family models; then
  M="$fx/m"
  mkdir -p "$M"
  pt() {  # pt NAME WEIGHTS-SOURCE-CMD: $M/NAME.pt from a command's stdout, with q's sidecar
    eval "$2" > "$M/$1.pt"
    cp "$q.json" "$M/$1.pt.json"
  }
  qs=$(stat -c %s "$q")
  pt half "head -c $((qs / 2)) '$q'"
  pt empty ":"
  pt garbage "head -c $qs '$fx/odd/garbage.bin'"
  cp "$M/half.pt" "$M/half_tied.pt"; tie "$q.json" "$M/half_tied.pt" "$M/half_tied.pt.json"
  : > "$M/empty_tied.pt"; tie "$q.json" "$M/empty_tied.pt" "$M/empty_tied.pt.json"
  cp "$M/garbage.pt" "$M/garbage_tied.pt"; tie "$q.json" "$M/garbage_tied.pt" "$M/garbage_tied.pt.json"
  python3 - "$M/zip_tied.pt" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
    z.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
    z.writestr("archive/constants.pkl", b"garbage")
    z.writestr("archive/version", b"3\n")
PY
  tie "$q.json" "$M/zip_tied.pt" "$M/zip_tied.pt.json"
  # A zip whose central directory is cut off, tied.
  head -c $((qs - 30)) "$q" > "$M/cut_tail_tied.pt"; tie "$q.json" "$M/cut_tail_tied.pt" "$M/cut_tail_tied.pt.json"
  # One flipped byte in the middle of the weights, tied: a corrupt but checksummed file.
  python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[len(b) // 2] ^= 0xff; open(sys.argv[2], 'wb').write(b)" "$q" "$M/flipped_tied.pt"
  tie "$q.json" "$M/flipped_tied.pt" "$M/flipped_tied.pt.json"
  # Foreign weights with q's sidecar, tied: correct's residual q (forward(x, p)), the
  # tabular q (3 inputs, standardisation inside), the KFAC MAP net (same shape).
  cp "$rq" "$M/residual_as_q.pt"; tie "$q.json" "$M/residual_as_q.pt" "$M/residual_as_q.pt.json"
  cp "$tq" "$M/tabular_as_q.pt"; tie "$q.json" "$M/tabular_as_q.pt" "$M/tabular_as_q.pt.json"
  cp "$qmap" "$M/map_as_q.pt"; tie "$q.json" "$M/map_as_q.pt" "$M/map_as_q.pt.json"
  # The tabular q's weights with a synthetic sidecar that claims its 3 inputs, tied.
  cp "$tq" "$M/tabular_claims.pt"; tie "$q.json" "$M/tabular_claims.pt" "$M/tabular_claims.pt.json" 'd["architecture"]["inputs"] = 3; d["input"]["shape"] = [3]'
  # Sidecars broken in themselves.
  cp "$q" "$M/nosidecar.pt"
  for n in sidecar_empty sidecar_garbage sidecar_array sidecar_truncated; do cp "$q" "$M/$n.pt"; done
  : > "$M/sidecar_empty.pt.json"
  cp "$fx/odd/garbage.bin" "$M/sidecar_garbage.pt.json"
  printf '[]' > "$M/sidecar_array.pt.json"
  head -c 200 "$q.json" > "$M/sidecar_truncated.pt.json"
  cp "$q" "$M/sidecar_nul_tail.pt"; { cat "$q.json"; printf '\0{"version": '; } > "$M/sidecar_nul_tail.pt.json"
  side() {  # side NAME SOURCE-PT CODE: a copy of SOURCE-PT with its sidecar mutated
    cp "$2" "$M/$1.pt"
    mut "$2.json" "$M/$1.pt.json" "$3"
  }
  side classes3 "$q" 'd["class_names"] = ["a", "b", "c"]'
  side inputs3 "$q" 'd["architecture"]["inputs"] = 3'
  side hidden51 "$q" 'd["architecture"]["hidden"] = [51]'
  side version99 "$q" 'd["version"] = 99'
  side fnv_upper "$q" 'd["weights"]["fnv1a64"] = d["weights"]["fnv1a64"].upper()'
  side fnv_short "$q" 'd["weights"]["fnv1a64"] = d["weights"]["fnv1a64"][:8]'
  side weights_format "$q" 'd["weights"]["format"] = "onnx"'
  side std_nan "$tq" 'd["input"]["standardisation"]["mean"][0] = float("nan")'
  side std_zero "$tq" 'd["input"]["standardisation"]["std"][0] = 0'
  side std_negative "$tq" 'd["input"]["standardisation"]["std"][0] = -1'
  side std_length "$tq" 'd["input"]["standardisation"]["std"] = [1.0]'
  side levels_empty "$tq" 'd["input"]["columns"][1]["levels"] = []'
  side levels_twice "$tq" 'd["input"]["columns"][1]["levels"] = ["red", "red"]'
  side columns_missing "$tq" 'del d["input"]["columns"]'
  mkdir -p "$M/folder.pt"; cp "$q.json" "$M/folder.pt.json"
  ln -s "$q" "$M/link.pt"
  cp "$q" "$M/sidecar_link.pt"; ln -s "$q.json" "$M/sidecar_link.pt.json"
  cp "$q" "$M/sidecar_fifo.pt"; mkfifo "$M/sidecar_fifo.pt.json"
  mkfifo "$M/fifo.pt"; cp "$q.json" "$M/fifo.pt.json"
  truncate -s 200M "$M/sparse.pt"; cp "$q.json" "$M/sparse.pt.json"

  dec() {  # dec EXPECT NAME [decide flags]: decide on $M/NAME.pt at one point
    local e="$1" n="$2"
    shift 2
    case_ models "$e" -t 30 -n "$n.pt" -- decide --model "$M/$n.pt" --point 0.5,-0.5 "$@"
  }
  for n in half empty garbage nosidecar sidecar_empty sidecar_garbage sidecar_array sidecar_truncated sidecar_nul_tail \
           classes3 inputs3 hidden51 version99 fnv_short weights_format folder sparse; do
    dec bad "$n"
  done
  # Tied but unreadable or foreign weights: the loader's or the forward's error, refused
  # (1 or 2), never a crash.
  for n in half_tied empty_tied garbage_tied zip_tied cut_tail_tied flipped_tied residual_as_q tabular_as_q; do
    dec fail "$n"
  done
  dec any map_as_q        # the same architecture: nothing can tell them apart
  dec any tabular_claims  # 3 inputs as the sidecar says; but a point of 2
  case_ models fail -t 30 -n tabular_claims.pt -- decide --model "$M/tabular_claims.pt" --point 0.5,-0.5,1
  dec any fnv_upper
  dec any link            # a link to q, no sidecar beside the link
  dec any sidecar_link
  case_ models bad -t 20 -n sidecar_fifo.pt -- decide --model "$M/sidecar_fifo.pt" --point 0.5,-0.5
  case_ models bad -t 20 -n fifo.pt -- decide --model "$M/fifo.pt" --point 0.5,-0.5
  for n in std_nan std_zero std_negative std_length levels_empty levels_twice; do
    case_ models bad -t 30 -n "$n.pt" -- decide --model "$M/$n.pt" --point 0.5,red
  done
  # No column list: a sidecar of a numeric table, then "red" is no number.
  case_ models any -n columns_missing.pt -n --point -- decide --model "$M/columns_missing.pt" --point 0.5,red
  case_ models bad -n q.pt.json -- decide --model "$q.json" --point 0.5,-0.5
  # check reads the same files.
  for n in half_tied garbage_tied zip_tied flipped_tied residual_as_q tabular_as_q std_zero levels_twice sidecar_fifo; do
    case_ models fail -t 30 -n "$n.pt" -- check "$M/$n.pt"
  done
  # A CamVid model folder whose manifest is broken.
  cvmod() {  # cvmod NAME CODE: a copy of the CamVid model folder with camvid.json mutated
    cp -r "$fx/cvm" "$M/$1"
    mut "$fx/cvm/camvid.json" "$M/$1/camvid.json" "$2"
  }
  cvmod cv_missing_net 'd["methods"]["ours"] = "nothere.pt"'
  cvmod cv_height_zero 'd["height"] = 0'
  cvmod cv_mean_short 'd["mean"] = [0.5, 0.5]'
  cvmod cv_escape 'd["methods"]["ours"] = "../../models/sghmc_r0_q.pt"'
  cp -r "$fx/cvm" "$M/cv_net_garbage"; cp "$fx/odd/garbage.bin" "$M/cv_net_garbage/ours.pt"
  for n in cv_missing_net cv_height_zero cv_mean_short cv_escape cv_net_garbage; do
    case_ models bad -t 30 -n "$n" -- check "$M/$n"
    prep
    case_ models bad -t 30 -w 20 -n "$n" -k "$C/old.json" -- camvid fps --model "$M/$n" --fps-frames 2 --ensemble 1 --threads 1 --json "$C/old.json" --quiet
  done
fi

# ---------------------------------------------------------------- output faults
# Full disks are tiny tmpfs mounts, a failed rename an immutable old file (chattr +i), a
# read-only folder an immutable folder or a read-only bind mount: root writes through
# chmod. Each needs root; without it those cases are skipped (and said so).
can_mount=0; can_chattr=0
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$tmp/mnt/probe"
  if mount -t tmpfs -o size=64k tmpfs "$tmp/mnt/probe" 2> /dev/null; then
    can_mount=1; umount "$tmp/mnt/probe"
  fi
  touch "$tmp/mnt/probe.file"
  if chattr +i "$tmp/mnt/probe.file" 2> /dev/null; then
    if ! (echo x > "$tmp/mnt/probe.file") 2> /dev/null; then can_chattr=1; fi
    chattr -i "$tmp/mnt/probe.file"
  fi
fi
[ "$can_mount" = 1 ] || echo "fault_sweep.sh: cannot mount tmpfs here: full-disk and read-only-mount cases skipped"
[ "$can_chattr" = 1 ] || echo "fault_sweep.sh: chattr +i does not work here: failed-rename cases skipped"
# full NAME FREE_KB: a 2 MB tmpfs at $tmp/mnt/NAME with old.json and old.csv, then filled
# up to FREE_KB free (fill: again, after more is put there). Sets D to it.
full() {
  D="$tmp/mnt/$1"
  mkdir -p "$D"
  mount -t tmpfs -o size=2m,mode=0755 tmpfs "$D" || { echo "fault_sweep.sh: mount failed" >&2; exit 3; }
  mounts+=("$D")
  printf '{"old": true}\n' > "$D/old.json"
  printf 'old,csv\n' > "$D/old.csv"
  [ "$2" -ge 0 ] && fill "$2"
  return 0
}
fill() {
  head -c 3m /dev/zero > "$D/filler" 2> /dev/null
  [ "$1" -gt 0 ] && truncate -s -$(($1 * 1024)) "$D/filler"
  return 0
}
immutable() { chattr +i "$@" && immutables+=("$@"); }
rebind_ro() {  # a read-only bind mount of a folder over itself
  mount --bind "$1" "$1" && mounts+=("$1") && mount -o remount,bind,ro "$1"
}
if want_family outputs; then
  if [ "$can_mount" = 1 ]; then
    full json0 0;  case_ outputs fail -n old.json -k "$D/old.json" -- synthetic "${SQ[@]}" --json "$D/old.json"
    full json2 2;  case_ outputs fail -n old.json -k "$D/old.json" -- synthetic "${SQ[@]}" --json "$D/old.json"
    full csv0 0;   case_ outputs fail -n old.csv -n old.json -k "$D/old.csv" -k "$D/old.json" -- synthetic "${SQ[@]}" --csv "$D/old.csv" --json "$D/old.json"
    full models0 0; case_ outputs fail -n models -a "$D/models" -- synthetic "${SQ[@]}" --save-models "$D/models"
    full models6 6; case_ outputs fail -n models -a "$D/models" -- synthetic "${SQ[@]}" --save-models "$D/models"
    full models12 12; case_ outputs fail -n models -n old.json -a "$D/models" -k "$D/old.json" -- synthetic "${SQ[@]}" --save-models "$D/models" --json "$D/old.json"
    full out0 0;   case_ outputs fail -n out -a "$D/out" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$D/out"
    full out8 8;   case_ outputs fail -n out -a "$D/out" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$D/out"
    full out24 24; case_ outputs fail -n out -a "$D/out" -k "$D/old.json" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$D/out" --json "$D/old.json"
    full ccsv2 2;  case_ outputs fail -n old.csv -k "$D/old.csv" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --csv "$D/old.csv"
    full tmodels6 6; case_ outputs fail -n models -a "$D/models" -- tabular --data "$fx/csv/good.csv" "${TQ[@]}" --save-models "$D/models"
    full rel0 0;   case_ outputs fail -n rel.csv -a "$D/rel.csv" -- tabular --data "$fx/csv/good.csv" "${TQ[@]}" --reliability "$D/rel.csv"
    full sess0 0;  case_ outputs fail -n s.lcsession -a "$D/s.lcsession" -- synthetic "${SQ[@]}" --write-session "$D/s.lcsession"
    full plan16 16; case_ outputs fail -n sweep -a "$D/sweep" -- sweep plan "$fx/sess/syn.lcsession" --over seed=0..59 --out "$D/sweep"
    full collect0 0; case_ outputs fail -n old.csv -k "$D/old.csv" -- sweep collect "$fx/sweep_ok" --csv "$D/old.csv"
    full cvm256 256; case_ outputs fail -n cvm -a "$D/cvm" -- camvid train --data "$fx/cv" --out "$D/cvm" --preset demo --max-train 2 --epochs 1 --correction-epochs 1 --methods mc_dropout,cw_sgd,sghmc_s,ours --threads 1 --quiet
    # A sweep run whose results folder fills up: the cell fails, no half result is kept.
    full sweeprun -1; cp -r "$fx/sweep_ok" "$D/sw"; rm -f "$D"/sw/{results,status,logs}/0000.*; fill 0
    case_ outputs fail -n sw -- sweep run "$D/sw" --quiet
    # Read-only folders: a read-only bind mount.
    prep; mkdir -p "$C/ro"; printf '{"old": true}\n' > "$C/ro/old.json"; rebind_ro "$C/ro"
    case_ outputs bad -n ro -k "$C/ro/old.json" -- synthetic "${SQ[@]}" --json "$C/ro/old.json"
    prep; mkdir -p "$C/ro"; rebind_ro "$C/ro"
    case_ outputs bad -n ro -a "$C/ro/models" -- synthetic "${SQ[@]}" --save-models "$C/ro/models"
    prep; mkdir -p "$C/ro"; rebind_ro "$C/ro"
    case_ outputs bad -n ro -a "$C/ro/s.lcsession" -- synthetic "${SQ[@]}" --write-session "$C/ro/s.lcsession"
    prep; mkdir -p "$C/ro"; rebind_ro "$C/ro"
    case_ outputs bad -n ro -a "$C/ro/out" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$C/ro/out"
  fi
  if [ "$can_chattr" = 1 ]; then
    # A rename over an immutable old file fails: the old file and no temporary stay.
    prep; immutable "$C/old.json"
    case_ outputs fail -n old.json -k "$C/old.json" -- synthetic "${SQ[@]}" --json "$C/old.json"
    prep; immutable "$C/old.csv"
    case_ outputs fail -n old.csv -k "$C/old.csv" -k "$C/old.json" -- tabular --data "$fx/csv/good.csv" "${TQ[@]}" --csv "$C/old.csv" --json "$C/old.json"
    # A model folder whose old file cannot be replaced: all of the new files or none.
    prep; cp -r "$fx/models" "$C/models"; immutable "$C/models/sghmc_r0_q.pt.json"
    case_ outputs fail -n models -k "$C/models" -- synthetic "${SQ[@]}" --seed 3 --save-models "$C/models"
    prep; cp -r "$fx/own_res" "$C/out"; immutable "$C/out/q.pt"
    case_ outputs fail -n out -k "$C/out" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --seed 3 --out "$C/out"
    prep; cp -r "$fx/cvm" "$C/cvm"; rm -f "$C/cvm/camvid.json"; immutable "$C/cvm/ours.pt"
    case_ outputs fail -n cvm -k "$C/cvm" -- camvid train --data "$fx/cv" --out "$C/cvm" --preset demo --max-train 2 --epochs 1 --correction-epochs 1 --methods mc_dropout,cw_sgd,sghmc_s,ours --threads 1 --quiet
    # An immutable folder: nothing can be created in it.
    prep; mkdir -p "$C/frozen"; immutable "$C/frozen"
    case_ outputs bad -n frozen -a "$C/frozen/r.json" -- synthetic "${SQ[@]}" --json "$C/frozen/r.json"
    prep; mkdir -p "$C/frozen"; immutable "$C/frozen"
    case_ outputs bad -n frozen -a "$C/frozen/out" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$C/frozen/out"
    prep; cp -r "$fx/sweep_ok" "$C/sw"; rm -f "$C"/sw/{results,status,logs}/0000.*; immutable "$C/sw/results"
    case_ outputs fail -n sw -k "$C/sw/sweep.json" -- sweep run "$C/sw" --cells 0 --quiet
  fi
  # An output that is one of the inputs, spelled otherwise.
  prep; cp "$A/x.csv" "$A/p.csv" "$A/y.csv" "$C/"
  case_ outputs bad -n p.csv -- correct --features "$C/x.csv" --predictive "$C/p.csv" "${CQ[@]}" --json "$C/p.csv"
  prep; cp "$A/x.csv" "$A/p.csv" "$A/y.csv" "$C/"; ln -s "$C" "$C/again"
  case_ outputs bad -n y.csv -- correct --features "$C/x.csv" --predictive "$C/p.csv" --labels "$C/y.csv" "${CQ[@]}" --csv "$C/again/y.csv"
  prep; cp "$fx/csv/good.csv" "$C/t.csv"; ln "$C/t.csv" "$C/hard.csv"
  case_ outputs bad -n hard.csv -n t.csv -- tabular --data "$C/t.csv" "${TQ[@]}" --reliability "$C/hard.csv"
  prep; cp "$fx/cost/c_m_null.json" "$C/c.json"
  case_ outputs bad -n c.json -- tabular --data "$fx/csv/good.csv" "${TQ[@]}" --costs "$C/c.json" --cost-benefit "$C/c.json"
  prep; cp "$fx/cost/c_m_null.json" "$C/c.json"
  case_ outputs bad -n c.json -- synthetic "${SQ[@]}" --costs "$C/c.json" --write-session "$C/c.json"
  prep; cp -r "$fx/sweep_ok" "$C/sw"
  case_ outputs bad -n sweep.json -- sweep collect "$C/sw" --json "$C/sw/sweep.json"
  prep; cp -r "$fx/sweep_ok" "$C/sw"
  case_ outputs bad -n 0000.lcsession -- sweep collect "$C/sw" --wide-csv "$C/sw/cells/0000.lcsession"
  prep; cp "$fx/sess/syn.lcsession" "$C/s.lcsession"
  case_ outputs bad -n s.lcsession -n "$C" -a "$C/cells" -- sweep plan "$C/s.lcsession" --over seed=0..1 --out "$C"
  prep; mkdir -p "$C/busy"; echo keep > "$C/busy/notes.txt"
  case_ outputs bad -n busy -K "$C/busy" -- sweep plan "$fx/sess/syn.lcsession" --over seed=0..1 --out "$C/busy"
  prep; cp -r "$fx/cv" "$C/cv"
  case_ outputs bad -n cv -K "$C/cv" -- camvid train --data "$C/cv" --out "$C/cv" --preset demo --max-train 2 --epochs 1 --quiet
  # Two outputs of one run that meet.
  prep
  case_ outputs ok -e "$C/new/r.json" -e "$C/new/sghmc_r0_q.pt" -- synthetic "${SQ[@]}" --save-models "$C/new" --json "$C/new/r.json"
  prep; mkdir -p "$C/have"
  case_ outputs ok -e "$C/have/r.json" -e "$C/have/sghmc_r0_q.pt" -- synthetic "${SQ[@]}" --save-models "$C/have" --json "$C/have/r.json"
  prep
  case_ outputs bad -n results.json -a "$C/D" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$C/D" --json "$C/D/results.json"
  prep
  case_ outputs bad -n decisions.csv -a "$C/D" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$C/D" --csv "$C/D/decisions.csv"
  prep
  case_ outputs any -n extra.json -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$C/D" --json "$C/D/extra.json"
  prep
  case_ outputs fail -n kfac_laplace_r0_q.pt -a "$C/D" -- tabular --data "$fx/csv/good.csv" "${TQ[@]}" --save-models "$C/D" --csv "$C/D/kfac_laplace_r0_q.pt"
  # ... the same with the folder already there: --out's and --save-models' own files
  # are outputs too.
  prep; mkdir -p "$C/D"
  case_ outputs bad -n results.json -k "$C/D" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$C/D" --json "$C/D/results.json"
  prep; mkdir -p "$C/D"
  case_ outputs bad -n decisions.csv -k "$C/D" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$C/D" --csv "$C/D/decisions.csv"
  prep; mkdir -p "$C/D"
  case_ outputs bad -n kfac_laplace_r0_q.pt -k "$C/D" -- tabular --data "$fx/csv/good.csv" "${TQ[@]}" --save-models "$C/D" --csv "$C/D/kfac_laplace_r0_q.pt"
  prep; mkdir -p "$C/D"
  case_ outputs bad -n sghmc_r0_q.pt.json -k "$C/D" -- synthetic "${SQ[@]}" --save-models "$C/D" --json "$C/D/sghmc_r0_q.pt.json"
  # A sweep folder missing a part: named, not blamed on the program.
  for part in logs status results; do
    prep; cp -r "$fx/sweep_ok" "$C/sw"; rm -f "$C"/sw/{results,status,logs}/0000.*; rm -rf "$C/sw/$part"
    case_ outputs fail -n "$part" -K "$C/sw/sweep.json" -- sweep run "$C/sw" --cells 0 --quiet
  done
  prep; ln -s "$C" "$C/same"
  case_ outputs bad -n r.json -a "$C/r.json" -- synthetic "${SQ[@]}" --json "$C/r.json" --csv "$C/same/r.json"
  # Outputs that are not files.
  prep; mkdir -p "$C/adir"; ln -s "$C/adir" "$C/dirlink.json"
  case_ outputs bad -n dirlink.json -K "$C/dirlink.json" -K "$C/adir" -- synthetic "${SQ[@]}" --json "$C/dirlink.json"
  prep; ln -s "$C/nowhere.csv" "$C/dangling.csv"
  case_ outputs bad -n dangling.csv -K "$C/dangling.csv" -a "$C/nowhere.csv" -- tabular --data "$fx/csv/good.csv" "${TQ[@]}" --reliability "$C/dangling.csv"
  prep; mkfifo "$C/cb.csv"
  case_ outputs bad -t 20 -n cb.csv -K "$C/cb.csv" -- correct --features "$A/x.csv" --predictive "$A/p.csv" --labels "$A/y.csv" "${CQ[@]}" --cost-benefit "$C/cb.csv"
  case_ outputs bad -n /dev/full -- synthetic "${SQ[@]}" --json /dev/full
  prep
  case_ outputs bad -n r.json -a "$C/r.json" -- synthetic "${SQ[@]}" --json "$C/r.json/"
  prep
  case_ outputs bad -n --csv -- synthetic "${SQ[@]}" --csv .
  prep
  case_ outputs bad -n --json -- synthetic "${SQ[@]}" --json ..
  prep; long=$(printf 'y%.0s' $(seq 1 256))
  case_ outputs bad -n --json -a "$C/$long.json" -- synthetic "${SQ[@]}" --json "$C/$long.json"
  prep; mkdir -p "$C/target"; ln -s "$C/target" "$C/models"
  case_ outputs any -n models -K "$C/models" -- synthetic "${SQ[@]}" --save-models "$C/models"
  prep; mkdir -p "$C/D"; echo keep > "$C/D/notes.txt"
  case_ outputs any -n D -K "$C/D/notes.txt" -- correct --features "$A/x.csv" --predictive "$A/p.csv" "${CQ[@]}" --out "$C/D"
  prep; mkfifo "$C/overlays"
  case_ outputs bad -t 20 -n overlays -K "$C/overlays" -- camvid eval --data "$fx/cv" --model "$fx/cvm" --overlays "$C/overlays" --quiet
  prep
  case_ outputs any -n r.json -- synthetic "${SQ[@]}" --json "./nosuchdir/../r.json"
  prep
  case_ outputs ok -e "$C/rel/r.json" -- synthetic "${SQ[@]}" --save-models rel --json rel/r.json
fi

# ---------------------------------------------------------------- signals
# SIGINT, SIGTERM, SIGHUP at 0.5 s (often still loading LibTorch), 1.5 s and 3 s into a
# long run: exit 128 + N, old outputs intact, new ones absent, no temporaries, no child left.
sigs() {  # sigs NAME SETUP CMD...: every signal at every delay; SETUP runs in the case folder first
  local name="$1" setup="$2" s t
  shift 2
  for s in INT TERM HUP; do
    for t in 0.5 1.5 3; do
      prep
      (cd "$C" && eval "$setup")
      local -a cmd=()
      local a
      for a in "$@"; do cmd+=("${a//@C@/$C}"); done
      case_ signals sig -S "$s" "$t" -k "$C/old.json" -k "$C/old.csv" -a "$C/models" -a "$C/out" -K "$C/keep" \
        -a "$C/sw/results/0000.json" -- "${cmd[@]}"
    done
  done
}
if want_family signals; then
  sigs synthetic ':' synthetic --replicates 20 --threads 1 --json @C@/old.json --csv @C@/old.csv --save-models @C@/models --quiet
  sigs tabular ':' tabular --data "$fx/csv/long.csv" --replicates 20 --threads 1 --json @C@/old.json --save-models @C@/models --quiet
  sigs correct ':' correct --features "$A/x_long.csv" --predictive "$A/p_long.csv" --correction-iterations 50000 --warm-start-steps 3000 \
    --json @C@/old.json --csv @C@/old.csv --out @C@/out --quiet
  # sweep run: the manifest and the sessions are kept (keep: a copy of them), no cell's
  # result is half-written, and no cell's process outlives the sweep.
  sigs sweep_run "cp -r '$fx/sweep_long' sw && mkdir keep && cp -r sw/sweep.json sw/cells keep/" sweep run @C@/sw --quiet
  sigs camvid_fps ':' camvid fps --model "$fx/cvm" --fps-frames 50 --threads 1 --json @C@/old.json --quiet
  # sweep plan of 5000 cells (some seconds of writing): nothing is written unless all is.
  for s in INT TERM HUP; do
    prep
    case_ signals sig -S "$s" 2.5 -a "$C/out" -- sweep plan "$fx/sess/syn.lcsession" --over seed=0..4999 --out "$C/out"
  done
  for s in INT TERM HUP; do
    prep
    case_ signals sig -S "$s" 2 -k "$C/old.json" -k "$C/old.csv" -- run "$fx/sess/syn_long.lcsession" --json "$C/old.json" --csv "$C/old.csv" --quiet
  done
  for s in INT TERM HUP; do
    prep
    case_ signals sig -S "$s" 3 -k "$C/old.json" -a "$C/m" -- camvid train --data "$fx/cv" --out "$C/m" --preset demo --max-train 2 --epochs 200 \
      --correction-epochs 1 --methods mc_dropout,cw_sgd,sghmc_s,ours --threads 1 --json "$C/old.json" --quiet
  done
  # A second signal while the first is being handled: still 128 + N, still clean.
  prep
  case_ signals sig -S INT 2 -R 2.1 -k "$C/old.json" -a "$C/out" -- correct --features "$A/x_long.csv" --predictive "$A/p_long.csv" \
    --correction-iterations 50000 --json "$C/old.json" --out "$C/out" --quiet
  prep
  case_ signals sig -S TERM 2 -R 2.1 -k "$C/old.json" -a "$C/models" -- synthetic --replicates 20 --threads 1 --json "$C/old.json" --save-models "$C/models" --quiet
fi

# ---------------------------------------------------------------- flags
if want_family flags; then
  flag() {  # flag EXPECT TOKEN ARGS...
    local e="$1" tkn="$2"
    shift 2
    case_ flags "$e" -n "$tkn" -- "$@"
  }
  flag any --replicates synthetic --replicates=1 --methods=sghmc --correction-iterations=20 --warm-start-steps=5 --threads=1 --quiet
  flag bad --replicates synthetic --replicates -5
  flag bad --replicates synthetic --replicates 99999999999999999999
  flag bad --replicates synthetic --replicates 0x10
  flag any --replicates synthetic --replicates " 1" --methods sghmc --correction-iterations 20 --warm-start-steps 5 --threads 1 --quiet
  flag bad --json synthetic --json=
  flag bad --methods synthetic --methods ""
  flag bad ßghmc synthetic --methods sghmc,ßghmc
  flag bad --data tabular --data --json x.json
  flag bad --features correct --features - --predictive "$A/p.csv"
  flag bad --help synthetic --help=
  flag any --help synthetic -h extra
  flag any --correction-lr synthetic "${SQ[@]}" --correction-lr 1e-400
  flag bad --correction-lr synthetic --correction-lr inf
  flag bad --threads synthetic --threads 0
  flag any --threads synthetic "${SQ[@]/--threads/--seed}" --threads 100000
  flag any --device synthetic "${SQ[@]}" --device cuda:0
  flag bad --device synthetic --device cuda:-1
  flag any --device synthetic "${SQ[@]}" --device CPU
  flag bad --seed synthetic --seed 18446744073709551616
  flag any --seed synthetic "${SQ[@]}" --seed 18446744073709551615
  prep; flag bad --json synthetic --json "$C/$(printf 'n%.0s' $(seq 1 5000)).json"
  flag bad répliques synthetic --répliques 3
  flag bad --preset synthetic --preset synthetic --preset synthetic
  flag bad --quiet synthetic --quiet --quiet
  flag bad -- synthetic -- --quiet
  flag bad '""' ""
  case_ flags any -- 
  flag bad preset presets ""
  flag any SYNTHETIC presets SYNTHETIC
  flag bad --epochs bench distill --epochs 0
  flag bad /nonexistent bench distill --data /nonexistent/data
  flag bad foo bench foo
  flag bad --ensemble camvid fps --model "$fx/cvm" --ensemble 0
  flag bad --ensemble camvid fps --model "$fx/cvm" --ensemble 1,,2
  flag bad --fps-frames camvid fps --model "$fx/cvm" --fps-frames 0
  flag bad nope camvid eval --data "$fx/cv" --model "$fx/cvm" --eval-split nope --quiet
  flag bad -j sweep run "$fx/sweep_ok" -j 0
  prep; cp -r "$fx/sweep_ok" "$C/sw"
  flag any -j sweep run "$C/sw" -j 100000 --quiet
  prep; flag bad seed sweep plan "$fx/sess/syn.lcsession" --over seed=0..100000000 --out "$C/plan"
  prep; flag bad seed sweep plan "$fx/sess/syn.lcsession" --over seed=0..3 --over seed=4..5 --out "$C/plan"
  flag bad --point decide --model "$q" --point ""
  flag bad --held-out-share correct --features "$A/x.csv" --predictive "$A/p.csv" --held-out-share 1
  flag bad --input-noise correct --features "$A/x.csv" --predictive "$A/p.csv" --input-noise -1
  flag bad --teacher correct --features "$A/x.csv" --predictive "$A/p.csv" --teacher teachers
  flag bad --weight-decay correct --features "$A/x.csv" --predictive "$A/p.csv" --weight-decay nan
  flag bad shares correct --features "$A/x.csv" --predictive "$A/p.csv" --labels "$A/y.csv" --test-share 0.5 --validation-share 0.5
  flag bad --threads tabular --data "$fx/csv/good.csv" --threads -1
  prep; flag any r synthetic "${SQ[@]}" --json "$C/r"$'\n'".json"
fi

# ---------------------------------------------------------------- image experiments and CamVid (refusals only)
if want_family images; then
  I="$fx/img"
  mkdir -p "$I/cifar_empty" "$I/mnist_short"
  : > "$I/cifar_empty/data_batch_1.bin"; : > "$I/cifar_empty/test_batch.bin"
  mnist_short "$I/mnist_short"
  img() {  # img TOKEN[|TOKEN] ARGS...: refused before any work (still working after 20 s: accepted)
    local -a tk=() opts=()
    IFS='|' read -ra tk <<< "$1"
    shift
    local t
    for t in "${tk[@]}"; do opts+=(-n "$t"); done
    prep
    case_ images bad -w 20 "${opts[@]}" -k "$C/old.json" -- "$@" --json "$C/old.json" --quiet
  }
  cvd=/work/shared/datasets/camvid
  img odd corruption --data "$fx/odd"
  img cv corruption --data "$fx/cv"
  img mnist_short corruption --data "$I/mnist_short"
  img cifar_empty selective --data "$I/cifar_empty"
  img csv selective --data "$fx/csv"
  img --copies selective --data fashion-mnist --copies 0
  img --referral-costs selective --data fashion-mnist --referral-costs -1
  img --epochs corruption --data fashion-mnist --epochs 0
  img --preset camvid run --data "$fx/cv" --preset nope
  img odd camvid run --data "$fx/odd"
  img --max-eval camvid run --data "$fx/cv" --max-eval 0
  img cv camvid fps --model "$fx/cv"
  img "c_three.json|cost matrix" camvid correct --data "$fx/cv" --model "$fx/cvm" --costs "$fx/cost/c_three.json"
  prep
  case_ images bad -w 20 -n --risk-coverage -- selective --data fashion-mnist --risk-coverage "$C" --quiet
  case_ images bad -w 20 -n odd -- bench distill --data "$fx/odd"
  if [ -d "$cvd" ]; then
    img camvid corruption --data "$cvd"
    prep
    case_ images bad -w 20 -n --preset -a "$C/m" -- camvid train --data "$cvd" --out "$C/m" --preset nope --quiet
    img "c_three.json|cost matrix" camvid run --data "$cvd" --costs "$fx/cost/c_three.json"
    img nope camvid eval --data "$cvd" --model "$fx/cvm" --eval-split nope
  fi
fi

# ---------------------------------------------------------------- the report
total=$(wc -l < "$results")
echo
echo "================================================================ fault sweep: $total cases"
echo "per class:"
for k in pass CRASH HANG PARTIAL SILENT WRONG UNCLEAR; do
  printf '  %-8s %d\n' "$k" "$(awk -F'\t' -v k="$k" '$3 == k' "$results" | wc -l)"
done
printf '  %-8s %d (sessions where check and run disagree, listed below)\n' DIVERGE "$(wc -l < "$tmp/diverge.tsv")"
echo "per family (cases, non-pass):"
awk -F'\t' '{n[$2]++; if ($3 != "pass") b[$2]++} END {for (f in n) printf "  %-9s %4d %4d\n", f, n[f], b[f] + 0}' "$results" | sort
echo "per command (cases, non-pass):"
awk -F'\t' '{split($5, w, " "); c = w[2]; if (c == "sweep" || c == "camvid" || c == "bench") c = c " " w[3]; if (c == "") c = "(no command)";
             n[c]++; if ($3 != "pass") b[c]++} END {for (c in n) printf "  %-16s %4d %4d\n", c, n[c], b[c] + 0}' "$results" | sort
ndiv=$(wc -l < "$tmp/diverge.tsv")
echo "check vs run: $nsess session(s), $ndiv disagreement(s)"
while IFS=$'\t' read -r cid rid f cv rv; do
  echo "  DIVERGE $f: $cv (case $cid), $rv (case $rid)"
done < "$tmp/diverge.tsv"
nbad=$(awk -F'\t' '$3 != "pass"' "$results" | wc -l)
echo "wall time: $((SECONDS / 60)) min $((SECONDS % 60)) s"
if [ "$nbad" -gt 0 ]; then
  echo
  echo "non-pass cases:"
  while IFS=$'\t' read -r id fam klass rc cmd notes; do
    [ "$klass" = pass ] && continue
    echo "--- $id [$klass] ($fam, exit $rc) $cmd"
    echo "    $notes"
    echo "    output: $(sed "s|$tmp|\$T|g" "$cases/$id/.excerpt")"
  done < "$results"
fi
[ "$nbad" -eq 0 ] && [ "$ndiv" -eq 0 ]
