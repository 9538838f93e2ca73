"""Benchmark RFAE's reconstruction against PCA and a small torch autoencoder, in one process.

At equal latent dimension d_Z, on scikit-learn's bundled wine, breast cancer, diabetes and
digits (standardized; columns with a train or test standard deviation below 0.1 dropped) and
one mixed table (wine with its class and a three-level alcohol band as categorical columns),
each method is fitted on 75 % of the rows and reconstructs the held-out 25 %:

* RFAE: ``RFAutoencoder`` (unsupervised synthetic-contrast forest of 100 trees, k-NN decoder,
  k = 20), categorical columns native (DataFrame in, DataFrame out);
* PCA: ``sklearn.decomposition.PCA`` on the one-hot encoded table, categorical columns decoded
  by the arg-max of their one-hot block;
* AE: a torch MLP d_X -> 32 -> d_Z -> 32 -> d_X (tanh), Adam lr 1e-2, 500 full-batch epochs,
  MSE on the same one-hot encoding, seeded.

Columns: the mean held-out R² over numeric columns, the accuracy over categorical columns (mixed
table only) and the fit wall time (best of one run: the fits are seconds long). The ratios put
RFAE's figure over each peer's. ``--plot`` writes RFAE's 2-D embedding of digits.

    .venv/bin/python benchmarks/bench_rfae.py                # d_Z = 2 and 4
    .venv/bin/python benchmarks/bench_rfae.py --quick        # d_Z = 2, 30 trees, 200 epochs
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
import torch
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from algorithms.forests import RFAutoencoder, column_distortion

torch.set_num_threads(1)


def _numeric_tables() -> dict[str, pd.DataFrame]:
    tables = {}
    for name, loader in (("wine", load_wine), ("breast_cancer", load_breast_cancer),
                         ("diabetes", load_diabetes), ("digits", load_digits)):
        X = loader().data
        X = X[:, X.std(axis=0) > 0]  # drop constant pixels
        columns = [f"x{j}" for j in range(X.shape[1])]
        tables[name] = pd.DataFrame(StandardScaler().fit_transform(X), columns=columns)
    wine = load_wine(as_frame=True)
    mixed = pd.DataFrame(StandardScaler().fit_transform(wine.data.drop(columns="alcohol")),
                         columns=wine.data.columns.drop("alcohol"))
    mixed["cultivar"] = pd.Categorical(wine.target.map({0: "a", 1: "b", 2: "c"}))
    mixed["alcohol_band"] = pd.Categorical(pd.qcut(wine.data["alcohol"], 3, labels=["low", "mid", "high"]))
    tables["wine_mixed"] = mixed
    return tables


def _one_hot(df: pd.DataFrame) -> tuple[np.ndarray, list]:
    blocks, layout = [], []
    for name in df.columns:
        if isinstance(df[name].dtype, pd.CategoricalDtype):
            cats = df[name].cat.categories
            blocks.append((df[name].to_numpy()[:, None] == np.asarray(cats)[None, :]).astype(float))
            layout.append((name, list(cats)))
        else:
            blocks.append(df[[name]].to_numpy(dtype=float))
            layout.append((name, None))
    return np.hstack(blocks), layout


def _from_one_hot(Y: np.ndarray, layout: list) -> pd.DataFrame:
    out, col = {}, 0
    for name, cats in layout:
        if cats is None:
            out[name] = Y[:, col]
            col += 1
        else:
            best = Y[:, col:col + len(cats)].argmax(axis=1)
            out[name] = pd.Categorical(np.asarray(cats)[best], categories=cats)
            col += len(cats)
    return pd.DataFrame(out)


def _scores(truth: pd.DataFrame, recon: pd.DataFrame) -> tuple[float, float]:
    categorical = np.array([isinstance(truth[c].dtype, pd.CategoricalDtype) for c in truth.columns])

    def codes(df: pd.DataFrame) -> np.ndarray:
        return np.column_stack([df[c].cat.codes if categorical[j] else df[c]
                                for j, c in enumerate(df.columns)]).astype(float)

    per_column = column_distortion(codes(truth), codes(recon.astype(truth.dtypes.to_dict())), categorical)
    r2 = float(1 - per_column[~categorical].mean())
    acc = float(1 - per_column[categorical].mean()) if categorical.any() else float("nan")
    return r2, acc


class _AE(torch.nn.Module):
    def __init__(self, d_in: int, d_z: int, seed: int) -> None:
        super().__init__()
        torch.manual_seed(seed)
        layers = torch.nn.Linear, torch.nn.Tanh
        self.encoder = torch.nn.Sequential(layers[0](d_in, 32), layers[1](), layers[0](32, d_z))
        self.decoder = torch.nn.Sequential(layers[0](d_z, 32), layers[1](), layers[0](32, d_in))

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.encoder(X))


def _run_ae(train: np.ndarray, test: np.ndarray, d_z: int, epochs: int) -> np.ndarray:
    model = _AE(train.shape[1], d_z, seed=0)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    X = torch.tensor(train, dtype=torch.float32)
    for _ in range(epochs):
        opt.zero_grad()
        loss = torch.mean((model(X) - X) ** 2)
        loss.backward()
        opt.step()
    with torch.no_grad():
        return model(torch.tensor(test, dtype=torch.float32)).numpy().astype(float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--plot", type=Path, default=Path("reports/bench_rfae_digits_2d.png"))
    args = parser.parse_args()
    dims = (2,) if args.quick else (2, 4)
    trees, epochs = (30, 200) if args.quick else (100, 500)
    header = (f"{'dataset':<14}{'d_Z':>4}{'R2 RFAE':>9}{'R2 PCA':>8}{'R2 AE':>8}{'acc RFAE':>9}{'acc PCA':>8}"
              f"{'acc AE':>8}{'t RFAE':>8}{'t PCA':>7}{'t AE':>7}{'R2/PCA':>8}{'R2/AE':>7}")
    print(header)
    print("-" * len(header))
    for name, df in _numeric_tables().items():
        train, test = train_test_split(df, test_size=0.25, random_state=0)
        # near-constant numeric columns (digits' border pixels) make a held-out R² meaningless
        flat = [c for c in df.columns if not isinstance(df[c].dtype, pd.CategoricalDtype)
                and min(train[c].std(), test[c].std()) < 0.1]
        train = train.drop(columns=flat).reset_index(drop=True)
        test = test.drop(columns=flat).reset_index(drop=True)
        oh_train, layout = _one_hot(train)
        oh_test, _ = _one_hot(test)
        for d_z in dims:
            start = time.perf_counter()
            ae = RFAutoencoder(n_components=d_z, n_estimators=trees, k=20, random_state=0).fit(train)
            t_rfae = time.perf_counter() - start
            rfae = _scores(test, ae.inverse_transform(ae.transform(test)))
            start = time.perf_counter()
            pca = PCA(d_z).fit(oh_train)
            t_pca = time.perf_counter() - start
            pca_scores = _scores(test, _from_one_hot(pca.inverse_transform(pca.transform(oh_test)), layout))
            start = time.perf_counter()
            recon = _run_ae(oh_train, oh_test, d_z, epochs)
            t_ae = time.perf_counter() - start
            ae_scores = _scores(test, _from_one_hot(recon, layout))
            print(f"{name:<14}{d_z:>4}{rfae[0]:>9.3f}{pca_scores[0]:>8.3f}{ae_scores[0]:>8.3f}{rfae[1]:>9.3f}"
                  f"{pca_scores[1]:>8.3f}{ae_scores[1]:>8.3f}{t_rfae:>8.2f}{t_pca:>7.3f}{t_ae:>7.2f}"
                  f"{rfae[0] / pca_scores[0]:>8.2f}{rfae[0] / ae_scores[0]:>7.2f}")
            if name == "digits" and d_z == 2 and args.plot:
                _plot(ae, load_digits(), args.plot)


def _plot(ae: RFAutoencoder, digits, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(4.5, 4))
    Z = ae.embedding_
    train_labels = train_test_split(digits.target, test_size=0.25, random_state=0)[0]
    scatter = ax.scatter(Z[:, 0], Z[:, 1], c=train_labels, cmap="tab10", s=4)
    ax.legend(*scatter.legend_elements(), fontsize=6, loc="best", title="digit")
    ax.set_xlabel("KPC1")
    ax.set_ylabel("KPC2")
    ax.set_title("RFAE diffusion map of digits (training rows)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
