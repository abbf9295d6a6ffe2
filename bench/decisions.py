#!/usr/bin/python3
"""Decisions on public tables: P, q and the calibrations practitioners use, held out.

For every table x seed x model, fixed before anything runs:
  * the rows are split (stratified, from the seed) into 30% to fit the model, 40% given
    to `lcstudio-cli correct` as X with labels (q trains on 70% of them, the rest are the
    validation rows where the calibrations are fitted and the kept rule is chosen by
    cross-validation), and 30% as the separate labelled test set that nothing is fitted
    or chosen on;
  * the model is made in scikit-learn on the raw features (as shipped): a bootstrap
    ensemble of 10 logistic regressions (each a StandardScaler + LogisticRegression
    pipeline), or a 30-tree random forest; P is its predict_proba;
  * the cost matrix: missing the table's rarest class costs 5, any other mistake 1
    (breast cancer: missing a malignant tumour costs 10, a false alarm 1; Weka's credit-g:
    its documented matrix, a bad customer taken as good costs 5).
  * q is `correct`'s default in both forms, residual (the default) and standalone (the
    paper's), each scored against P with every calibration `correct` fits: temperature,
    class offsets, Platt and isotonic (two classes) or vector scaling (more), and the
    cheapest constant decision; the kept rule is what the default run stands by.
Prints one line per run and a summary per table, and writes every figure to --out CSV.
Flags after `--` go to every `correct` run (to try a setting on every table at once).

Tables come from Debian's packages: scikit-learn's bundled tables (python3-sklearn), and
Weka's example ARFF files where --weka-data names the folder of an unpacked weka package
(`apt-get download weka && dpkg -x weka_*.deb DIR`, then DIR/usr/share/...). A table
whose package is absent is skipped with a line that says so.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

SEEDS = (0, 1, 2)
MODELS = ("lr-ensemble", "forest")
Q_FORMS = ("residual", "standalone")  # the first is the default; the kept column is its


def sklearn_tables():
    try:
        from sklearn import datasets
    except ImportError:
        print("skip: scikit-learn's tables (python3-sklearn is not installed)")
        return []
    out = []
    for name, loader in (("breast_cancer", datasets.load_breast_cancer), ("wine", datasets.load_wine),
                         ("iris", datasets.load_iris), ("digits", datasets.load_digits)):
        d = loader()
        out.append((name, np.asarray(d.data, float), np.asarray(d.target, int), [str(c) for c in d.target_names]))
    return out


def weka_tables(folder):
    if not folder:
        print("skip: Weka's ARFF tables (no --weka-data folder given)")
        return []
    try:
        from scipy.io import arff
    except ImportError:
        print("skip: Weka's ARFF tables (python3-scipy is not installed)")
        return []
    out = []
    for name in ("credit-g", "diabetes", "ionosphere", "segment-challenge", "vote", "glass"):
        path = None
        for root, _, files in os.walk(folder):
            if name + ".arff" in files:
                path = os.path.join(root, name + ".arff")
                break
        if not path:
            print(f"skip: {name}.arff (not in {folder})")
            continue
        data, meta = arff.loadarff(path)
        names = meta.names()
        cls = names[-1]  # the class attribute is the last, as Weka assumes
        columns = []
        for n in names[:-1]:
            kind, levels = meta[n]
            col = data[n]
            if kind == "nominal":
                values = np.array([v.decode() for v in col])
                # A missing nominal value ("?") becomes its own level: a user's one-hot encoding.
                for level in list(levels) + (["?"] if (values == "?").any() else []):
                    columns.append((values == level).astype(float))
            else:
                v = np.asarray(col, float)
                v[np.isnan(v)] = np.nanmean(v)  # numeric "?" imputed by the column mean
                columns.append(v)
        x = np.stack(columns, 1)
        levels = list(meta[cls][1])
        y = np.array([levels.index(v.decode()) for v in data[cls]])
        keep = np.isin(np.arange(len(levels)), np.unique(y))
        remap = -np.ones(len(levels), int)
        remap[keep] = np.arange(keep.sum())
        out.append((name, x, remap[y], [l for l, k in zip(levels, keep) if k]))
    return out


def cost_matrix(name, y, classes):
    k = len(classes)
    costs = 1.0 - np.eye(k)
    if name == "breast_cancer":  # classes: malignant, benign
        costs = np.array([[0.0, 10.0], [1.0, 0.0]])
    elif name == "credit-g":  # classes: good, bad; a bad customer taken as good costs 5
        costs = np.array([[0.0, 1.0], [5.0, 0.0]])
    else:
        rare = int(np.argmin(np.bincount(y, minlength=k)))
        costs[rare, :] *= 5.0
        costs[rare, rare] = 0.0
    safe = [c.replace(",", " ") for c in classes]
    return {"format": "lcstudio-cost-matrix", "version": 1, "name": name, "classes": safe,
            "costs": costs.tolist()}


def predictive(model, x_fit, y_fit, rows, seed, k):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def full(proba, classes_seen):
        out = np.zeros((proba.shape[0], k))
        out[:, classes_seen] = proba
        return out

    if model == "forest":
        f = RandomForestClassifier(n_estimators=30, random_state=seed).fit(x_fit, y_fit)
        return [full(f.predict_proba(r), f.classes_) for r in rows]
    rng = np.random.default_rng(seed)
    sums = [np.zeros((r.shape[0], k)) for r in rows]
    for _ in range(10):
        idx = rng.integers(0, len(y_fit), len(y_fit))
        m = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(x_fit[idx], y_fit[idx])
        for s, r in zip(sums, rows):
            s += full(m.predict_proba(r), m.classes_)
    return [s / 10 for s in sums]


def split(y, seed):
    from sklearn.model_selection import train_test_split
    idx = np.arange(len(y))
    fit, rest = train_test_split(idx, train_size=0.3, stratify=y, random_state=seed)
    x_rows, test = train_test_split(rest, train_size=4 / 7, stratify=y[rest], random_state=seed)
    return fit, x_rows, test


# The columns every table and the summary show: (label, q form, rule). "platt|vec" is Platt
# scaling on two classes and vector scaling on more (the calibration of that kind the run fits).
COLUMNS = [("P", "residual", "P"), ("q resid", "residual", "q"), ("q stand", "standalone", "q"),
           ("temp", "residual", "temperature"), ("offsets", "residual", "offsets"),
           ("platt|vec", "residual", "platt|vector"), ("isotonic", "residual", "isotonic"),
           ("constant", "residual", "constant")]
BASELINES = ("temperature", "offsets", "platt|vector", "isotonic", "constant")


def pick(rules, rule):
    """The rule's row (a "platt|vector" column takes whichever the run fitted), or None."""
    for name in rule.split("|"):
        if name in rules:
            return rules[name]
    return None


def summarise(lines):
    """Per table: mean test cost of each rule over seeds and models, how many runs'
    intervals say better (b) or worse (w) than P, and the kept rule's."""
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    runs = {}
    for r in rows:
        runs.setdefault((r["table"], r["seed"], r["model"]), {}).setdefault(r["q_form"], {})[r["rule"]] = r
    print("\nSummary: mean test cost over seeds and models (runs better / worse than P by the interval)")
    print(f"{'table':18} {'runs':>4} " + " ".join(f"{label:>14}" for label, _, _ in COLUMNS) +
          f" {'kept (cv)':>14} {'best baseline':>18}")
    tables = list(dict.fromkeys(r["table"] for r in rows))
    for table in tables + ["all"]:
        chosen = [v for k, v in runs.items() if table in ("all", k[0])]
        cells = []
        for label, form, rule in COLUMNS:
            sel = [pick(v[form], rule) for v in chosen if form in v]
            sel = [r for r in sel if r is not None]
            if not sel:
                cells.append("-")
                continue
            mean = sum(float(r["cost"]) for r in sel) / len(sel)
            b = sum(r["verdict"] == "better" for r in sel)
            w = sum(r["verdict"] == "worse" for r in sel)
            cells.append(f"{mean:.4f}" + ("" if rule == "P" else f" {b:>2}/{w:<2}"))
        kept = [v["residual"][v["residual"]["P"]["kept"]] for v in chosen]
        kept_mean = sum(float(r["cost"]) for r in kept) / len(kept)
        kept_b = sum(r["verdict"] == "better" for r in kept)
        kept_w = sum(r["verdict"] == "worse" for r in kept)
        best = min(((sum(float(pick(v["residual"], b)["cost"]) for v in chosen) / len(chosen), b)
                    for b in BASELINES if all(pick(v["residual"], b) for v in chosen)), default=(float("nan"), "-"))
        print(f"{table:18} {len(chosen):>4} " + " ".join(f"{c:>14}" for c in cells) +
              f" {kept_mean:.4f} {kept_b:>2}/{kept_w:<2} {best[1]:>11} {best[0]:.4f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default="build/app/lcstudio-cli")
    ap.add_argument("--weka-data", default="")
    ap.add_argument("--out", default="decisions_benchmark.csv")
    ap.add_argument("--select", default="cv", choices=("cv", "validation", "clear", "none"))
    ap.add_argument("extra", nargs="*", help="further flags for every correct run (after --)")
    args = ap.parse_args()
    if args.weka_data and not os.path.isdir(args.weka_data):
        print(f"decisions.py: --weka-data {args.weka_data}: no such folder", file=sys.stderr)
        return 2
    # Everything a run would fail on at its end is checked before minutes of work.
    if not (os.path.isfile(args.cli) and os.access(args.cli, os.X_OK)):
        print(f"decisions.py: --cli {args.cli}: no such program (build it first, or give the path to "
              "lcstudio-cli)", file=sys.stderr)
        return 2
    out_dir = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(out_dir) or not os.access(out_dir, os.W_OK):
        print(f"decisions.py: --out {args.out}: cannot write into {out_dir}", file=sys.stderr)
        return 2
    tables = sklearn_tables() + weka_tables(args.weka_data)
    if not tables:
        print("decisions.py: no tables to benchmark: install python3-sklearn (and give --weka-data)", file=sys.stderr)
        return 1
    lines = ["table,seed,model,q_form,rows_test,rule,cost,accuracy,referral_rate,ece,change,low,high,verdict,kept,validation_p,validation_q"]
    print(f"{'table':18} {'seed':>4} {'model':12} {'P':>7} {'q resid':>7} {'q-P [95%]':>26} {'q stand':>7} "
          f"{'q-P [95%]':>26} " + " ".join(f"{label:>9}" for label, _, _ in COLUMNS[3:]) + f" {'kept':>11}")
    for name, x, y, classes in tables:
        k = len(classes)
        for seed in SEEDS:
            fit, x_rows, test = split(y, seed)
            for model in MODELS:
                p_x, p_test = predictive(model, x[fit], y[fit], [x[x_rows], x[test]], seed, k)
                evidence = {}
                with tempfile.TemporaryDirectory() as d:
                    np.savetxt(f"{d}/x.csv", x[x_rows], delimiter=",")
                    np.savetxt(f"{d}/p.csv", p_x, delimiter=",")
                    np.savetxt(f"{d}/y.csv", y[x_rows], fmt="%d")
                    np.savetxt(f"{d}/xt.csv", x[test], delimiter=",")
                    np.savetxt(f"{d}/pt.csv", p_test, delimiter=",")
                    np.savetxt(f"{d}/yt.csv", y[test], fmt="%d")
                    with open(f"{d}/costs.json", "w") as f:
                        json.dump(cost_matrix(name, y, classes), f)
                    for form in Q_FORMS:
                        cmd = [args.cli, "correct", "--features", f"{d}/x.csv", "--predictive", f"{d}/p.csv",
                               "--labels", f"{d}/y.csv", "--test-features", f"{d}/xt.csv", "--test-predictive",
                               f"{d}/pt.csv", "--test-labels", f"{d}/yt.csv", "--costs", f"{d}/costs.json",
                               "--validation-share", "0.3", "--select", args.select, "--q-form", form,
                               "--seed", str(seed), "--quiet", "--out", f"{d}/{form}"] + args.extra
                        run = subprocess.run(cmd, capture_output=True, text=True)
                        if run.returncode != 0:
                            print(f"{name} seed {seed} {model}: lcstudio-cli failed: {run.stderr.strip()[:300]}")
                            return 1
                        with open(f"{d}/{form}/results.json") as f:
                            evidence[form] = json.load(f)["evidence"]
                for form, e in evidence.items():
                    for r in e["rules"]:
                        c = r.get("change_vs_p", {})
                        lines.append(",".join(str(v) for v in (
                            name, seed, model, form, r["rows"], r["rule"], r["cost"], r["accuracy"],
                            r["referral_rate"], r["ece"], c.get("mean", 0), c.get("low", 0), c.get("high", 0),
                            c.get("verdict", ""), e["kept"], e["validation"]["cost_p"], e["validation"]["cost_q"])))
                cells = []
                for form in Q_FORMS:
                    rules = {r["rule"]: r for r in evidence[form]["rules"]}
                    q = rules["q"]["change_vs_p"]
                    cells.append(f"{rules['q']['cost']:7.4f} {q['mean']:+8.4f} [{q['low']:+.4f},{q['high']:+.4f}]"
                                 f"{'!' if q['verdict'] == 'worse' else ' '}")
                rules = {r["rule"]: r for r in evidence[Q_FORMS[0]]["rules"]}
                baselines = " ".join(f"{pick(rules, rule)['cost']:9.4f}" if pick(rules, rule) else f"{'-':>9}"
                                     for _, _, rule in COLUMNS[3:])
                kept = evidence[Q_FORMS[0]]["kept"]
                print(f"{name:18} {seed:>4} {model:12} {rules['P']['cost']:7.4f} {cells[0]} {cells[1]} "
                      f"{baselines} {kept:>11}{'!' if rules[kept].get('change_vs_p', {}).get('verdict') == 'worse' else ''}")
                sys.stdout.flush()
    with tempfile.NamedTemporaryFile("w", dir=out_dir, delete=False, suffix=".tmp") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(f.name, args.out)  # whole or not at all
    summarise(lines)
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
