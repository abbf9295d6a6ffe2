"""Loads every network tst_export left in DIR with PyTorch's own torch.jit.load, calls
it on the raw inputs saved beside it, and compares with the probabilities the C++
network gave. Exits 1 when any differs by more than 1e-5 or cannot be loaded."""
import glob
import json
import os
import sys

import numpy as np
import torch

TOLERANCE = 1e-5


def main(folder):
    models = sorted(glob.glob(os.path.join(folder, "*.pt")))
    if not models:
        print(f"no exported models in {folder}")
        return 1
    failures = 0
    for path in models:
        kind = os.path.basename(path)[:-3]
        with open(path + ".json") as f:
            sidecar = json.load(f)
        x = np.load(os.path.join(folder, kind + ".x.npy"))
        expected = np.load(os.path.join(folder, kind + ".expected.npy"))
        if list(x.shape[1:]) != sidecar["input"]["shape"]:
            print(f"{kind}: inputs {x.shape} do not match the sidecar's shape {sidecar['input']['shape']}")
            failures += 1
            continue
        model = torch.jit.load(path)
        with torch.no_grad():
            if sidecar.get("residual_on_predictive"):  # a model of the predictive: forward(x, p)
                p = np.load(os.path.join(folder, kind + ".p.npy"))
                probabilities = model(torch.from_numpy(x), torch.from_numpy(p)).double().numpy()
            else:
                probabilities = model(torch.from_numpy(x)).double().numpy()
        difference = float(np.abs(probabilities - expected).max())
        ok = probabilities.shape == expected.shape and difference <= TOLERANCE
        print(f"{kind}: {sidecar['architecture']['type']}, output {list(probabilities.shape)}, "
              f"largest difference from C++ {difference:.3g} {'ok' if ok else 'FAILED'}")
        failures += not ok
    print(f"torch {torch.__version__}: {len(models) - failures} of {len(models)} models agree within {TOLERANCE}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
