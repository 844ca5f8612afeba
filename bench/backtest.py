"""Conflict backtest study: tune radar-v1 on one repository's train slice, report on held-out data.

    .venv/bin/python -m bench.backtest --tune var/backtest/pip.jsonl --cut 2021-01-01 \
        --external var/backtest/tornado.jsonl --artefact proximity/fixtures/calibration/x.json \
        [--setting profile-defaults]

Pairs come from ``manage.py backtest_conflicts`` (see docs/EVALUATION.md). The tuning file is split
by time (both PRs merged before ``--cut`` = train, both after = test, straddlers dropped); settings
and thresholds are chosen on train only, then reported on test and on the external repository,
which plays no part in any choice. Prints Markdown.

``--setting tuned`` (the default) fits the calibration maps to the risk of the best setting on
train. ``--setting profile-defaults`` fits them to the risk the product shows: the airspace
engine's own ``scan`` with radar-v1's current defaults (weights, gamma, cap, overlap floor and
thresholds read from ``proximity/engine/airspace/profiles.py``, no options), so the artefact's
``setting`` and ``scorerVersion`` are the profile's and ``SCORER_VERSION``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from proximity.engine.airspace import PROFILES, SCORER_VERSION, scan
from proximity.engine.airspace.profiles import Profile
from proximity.engine.evaluation.backtest import BacktestPair, pair_airspace, pair_from_json
from proximity.engine.evaluation.calibration import (
    CalibrationArtefact,
    artefact_to_json,
    fit_isotonic,
    fit_platt,
)
from proximity.engine.evaluation.ranking import precision_recall_at, reliability_table
from proximity.engine.evaluation.report import BASELINES, format_reports
from proximity.engine.evaluation.scoring import pair_arrays, score_report, split_by_time
from proximity.engine.evaluation.tuning import (
    ChannelFeatures,
    RadarSetting,
    choose_threshold,
    dependency_distance,
    min_region_gap,
    radar_risk,
    search_settings,
)

ECC = PROFILES["ecc-v0"]
V1 = PROFILES["radar-v1"]
GRID: dict[str, list[float]] = {
    "w_adjacency": [0.5, 0.75, 0.9, 1.0],
    "w_dependency": [0.0, 0.1, 0.2, 0.3, 0.45, 0.6],
    "w_tree": [0.0, 0.1, 0.25],
    "gamma": [0.25, 0.5],
    "cap": [1, 2, 3],
    "margin": [2, 4, 8, 16],
    "overlap_floor": [0.0, 0.5, 1.0],
}
# Raw channels, whatever the profile's defaults: weights 1, no overlap floor (radar-v1's default
# floor 1.0 would otherwise turn every overlap coefficient into 1 before the grid sees it).
MEASURE = {"channelWeights": dict.fromkeys(("overlap", "adjacency", "dependency", "tree"), 1.0),
           "depDecay": 0.5, "dependencyCap": 3, "overlapFloor": 0.0}  # fmt: skip


def load(path: str) -> list[BacktestPair]:
    with Path(path).open(encoding="utf-8") as fh:
        return [pair_from_json(json.loads(line)) for line in fh]


def _key(f: dict[str, Any]) -> str:
    renamed = str(f.get("status", "")).startswith("R") and f.get("oldPath")
    return str(f["oldPath"]) if renamed else str(f["path"])


def pair_gap(pair: BacktestPair) -> float:
    """Smallest gap over shared files whose base regions do not overlap (radar's base keys)."""
    fa = {_key(dict(f)): f for f in pair.files_a}
    fb = {_key(dict(f)): f for f in pair.files_b}
    best = math.inf
    for key in fa.keys() & fb.keys():
        ha, hb = fa[key].get("baseHunks"), fb[key].get("baseHunks")
        if ha and hb:
            gap = min_region_gap(ha, hb)
            if gap > 0:
                best = min(best, gap)
    return best


def features(pairs: Sequence[BacktestPair]) -> ChannelFeatures:
    cols: dict[str, list[float]] = {"overlap": [], "gap": [], "distance": [], "tree": []}
    for p in pairs:
        links = scan(pair_airspace(p, options=MEASURE), profile="radar-v1", engine="reference")
        ch = links["links"][0]["channels"] if links["links"] else {}
        cols["overlap"].append(float(ch.get("overlap", 0.0)))
        cols["tree"].append(float(ch.get("tree", 0.0)))
        cols["distance"].append(dependency_distance(float(ch.get("dependency", 0.0)), gamma=0.5))
        cols["gap"].append(pair_gap(p))
    return ChannelFeatures(*(np.array(cols[k]) for k in ("overlap", "gap", "distance", "tree")))


def profile_risk(pairs: Sequence[BacktestPair], profile: str) -> np.ndarray:
    out = []
    for p in pairs:
        links = scan(pair_airspace(p), profile=profile, engine="reference")["links"]
        out.append(max((link["risk"] for link in links), default=0.0))
    return np.array(out)


def profile_setting(profile: Profile) -> dict[str, Any]:
    """A profile's defaults in the artefact's ``setting`` shape (the scan option names)."""
    return {
        "channelWeights": dict(profile.weights),
        "depDecay": profile.dep_decay,
        "dependencyCap": profile.dependency_cap,
        "overlapFloor": profile.overlap_floor,
    }


def feature_setting(profile: Profile) -> RadarSetting:
    """The profile's defaults as a tuning setting (margin 2; conflict and intent are not fed)."""
    w = profile.weights
    return RadarSetting(
        w_overlap=w["overlap"],
        w_adjacency=w["adjacency"],
        w_dependency=w["dependency"],
        w_tree=w["tree"],
        gamma=profile.dep_decay,
        cap=profile.dependency_cap,
        overlap_floor=profile.overlap_floor or 0.0,
    )


def subset(f: ChannelFeatures, idx: np.ndarray) -> ChannelFeatures:
    return ChannelFeatures(f.overlap[idx], f.gap[idx], f.distance[idx], f.tree[idx])


def table(
    title: str,
    pairs: Sequence[BacktestPair],
    scorers: dict[str, tuple[np.ndarray, float, float]],
    *,
    resamples: int,
    seed: int,
) -> str:
    arrays = pair_arrays(pairs)
    reports = []
    for name, (scores, ta, ra) in scorers.items():
        reports.append(score_report(name, scores, arrays, thresholds={"traffic": ta,
                       "resolution": ra}, resamples=resamples, seed=seed))  # fmt: skip
    for name, fn in BASELINES.items():
        scores = np.array([fn(p) for p in pairs])
        reports.append(score_report(name, scores, arrays, thresholds={"traffic": 0.35,
                       "resolution": 0.7}, resamples=resamples, seed=seed))  # fmt: skip
    n_conf = int(arrays.labels.sum())
    clusters = len(set(arrays.clusters.tolist()))
    head = f"### {title}: {len(pairs)} pairs, {n_conf} conflicts, {clusters} clusters"
    return head + "\n\n" + format_reports(reports, ["traffic", "resolution"])


def reliability(title: str, probs: np.ndarray, pairs: Sequence[BacktestPair]) -> str:
    arrays = pair_arrays(pairs)
    rows = reliability_table(np.clip(probs, 0, 1), arrays.labels, bins=10, weights=arrays.weights)
    w, y = arrays.weights, arrays.labels
    brier = float(np.sum(w * (probs - y) ** 2) / np.sum(w))
    lines = [f"{title} (weighted Brier score {brier:.4f})", "",
             "| predicted bin | pairs | weight | mean predicted | observed rate |",
             "|---|---|---|---|---|"]  # fmt: skip
    lines += [f"| {b.low:.1f}-{b.high:.1f} | {b.count} | {b.weight:.1f} | {b.mean_predicted:.3f} | "
              f"{b.observed_rate:.3f} |" for b in rows if b.count]  # fmt: skip
    return "\n".join(lines)


def ties(ranked: Sequence[Any], tolerance: float = 0.002) -> str:
    """Values of each tunable among settings within ``tolerance`` of the best train AP."""
    near = [s.setting for s in ranked if s.ap_weighted >= ranked[0].ap_weighted - tolerance]
    spans = {k: sorted({getattr(s, k) for s in near}) for k in GRID}
    return f"{len(near)} settings within {tolerance} of the best train AP; their values: {spans}"


def train_figures(risk: np.ndarray, arrays: Any, ta: float, ra: float) -> str:
    parts = []
    for name, t in (("traffic", ta), ("resolution", ra)):
        r = precision_recall_at(risk, arrays.labels, t, weights=arrays.weights)
        parts.append(f"{name} {t:g}: P {r.precision} R {r.recall} flagged {r.flagged_rate:.3f}")
    return "Train (weighted) at the reported thresholds: " + "; ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tune", required=True)
    ap.add_argument("--cut", required=True, help="ISO date: train before, test from")
    ap.add_argument("--external", required=True)
    ap.add_argument(
        "--artefact", help="write the calibration artefacts here (-isotonic/-platt before .json)"
    )
    ap.add_argument(
        "--setting",
        choices=("tuned", "profile-defaults"),
        default="tuned",
        help="fit the maps to the best train setting (tuned) or to radar-v1's current defaults"
        " as scored by the engine (profile-defaults)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resamples", type=int, default=300)
    ap.add_argument("--ra-precision", type=float, default=0.5)
    ap.add_argument("--ta-recall", type=float, default=0.8)
    ap.add_argument("--ta", type=float, help="traffic threshold to report instead of the rule's")
    ap.add_argument("--ra", type=float, help="resolution threshold to report instead of the rule's")
    args = ap.parse_args(argv)
    fixed = args.setting == "profile-defaults"
    if fixed and any(
        given is not None and given != default
        for given, default in ((args.ta, V1.ta), (args.ra, V1.ra))
    ):
        ap.error(f"--setting profile-defaults: thresholds are the profile's ({V1.ta}, {V1.ra})")
    started = time.perf_counter()
    tune, external = load(args.tune), load(args.external)
    train, test, dropped = split_by_time(tune, args.cut)
    log: Callable[[str], None] = lambda s: print(s, file=sys.stderr)  # noqa: E731
    log(f"train {len(train)}, test {len(test)}, dropped {dropped}, external {len(external)}")
    f_train, f_test, f_ext = features(train), features(test), features(external)
    a_train = pair_arrays(train)
    ranked = search_settings(f_train, a_train.labels, a_train.weights, GRID)
    best = ranked[0]
    risk_train = radar_risk(f_train, best.setting)
    ra = choose_threshold(risk_train, a_train.labels, a_train.weights,
                          min_precision=args.ra_precision)  # fmt: skip
    ta = choose_threshold(risk_train, a_train.labels, a_train.weights, min_recall=args.ta_recall)
    rule = f"rule-based thresholds on train: traffic {ta}, resolution {ra}"
    ta = args.ta if args.ta is not None else (ta if ta is not None else 0.35)
    ra = args.ra if args.ra is not None else (ra if ra is not None else 1.0)
    engine: dict[str, np.ndarray] = {}
    if fixed:  # the product's own risk: scan with the profile's defaults, no options
        engine = {"train": profile_risk(train, "radar-v1"), "test": profile_risk(test, "radar-v1"),
                  "external": profile_risk(external, "radar-v1")}  # fmt: skip
        fit_risk, fit_ta, fit_ra = engine["train"], V1.ta, V1.ra
        setting_json = profile_setting(V1)
    else:
        fit_risk, fit_ta, fit_ra = risk_train, ta, ra
        setting_json = {**best.setting.as_options(), "adjacencyMargin": best.setting.margin,
                        "overlapFloor": best.setting.overlap_floor}  # fmt: skip
    iso = fit_isotonic(fit_risk, a_train.labels, weights=a_train.weights)
    platt = fit_platt(fit_risk, a_train.labels, weights=a_train.weights)
    default_v1 = RadarSetting()
    out = [
        "Settings searched on train only: " + json.dumps(GRID),
        f"Chosen: {best.setting} (train AP w {best.ap_weighted:.3f},"
        f" AUC w {best.auc_weighted:.3f});"
        f" thresholds chosen on train: traffic {ta:.3g} (weighted recall >= {args.ta_recall}),"
        f" resolution {ra:.3g} (weighted precision >= {args.ra_precision}).",
        "Top five settings on train: "
        + "; ".join(f"{s.setting} AP {s.ap_weighted:.3f}" for s in ranked[:5]),
        rule,
        ties(ranked),
        train_figures(risk_train, a_train, ta, ra),
    ]
    if fixed:
        out.append(f"Calibration fitted to radar-v1's defaults as scanned ({SCORER_VERSION}): "
                   + json.dumps(setting_json, sort_keys=True) + "; "
                   + train_figures(fit_risk, a_train, fit_ta, fit_ra))  # fmt: skip
    out.append("")
    fitted_name = "radar-v1 defaults (scan)" if fixed else "recommended radar-v1"
    for key, title, pairs, feats in (
        ("test", "Test slice of the tuning repository", test, f_test),
        ("external", "External repository (no choice made on it)", external, f_ext),
    ):
        scorers = {
            "ecc-v0": (profile_risk(pairs, "ecc-v0"), ECC.ta, ECC.ra),
            "radar-v1 as landed": (radar_risk(feats, default_v1), 0.35, 0.7),
            "radar-v1 recommended": (radar_risk(feats, best.setting), ta, ra),
        }
        if fixed:
            scorers["radar-v1 defaults (scan)"] = (engine[key], fit_ta, fit_ra)
        out.append(table(title, pairs, scorers, resamples=args.resamples, seed=args.seed))
        out.append("")
        risk = engine[key] if fixed else radar_risk(feats, best.setting)
        out.append(reliability(f"Raw {fitted_name} risk as a probability", risk, pairs))
        out.append("")
        out.append(reliability("Isotonic-calibrated (fitted on train)", iso(risk), pairs))
        out.append("")
        out.append(reliability("Platt-calibrated (fitted on train)", platt(risk), pairs))
        out.append("")
    recomputed = radar_risk(f_test, feature_setting(V1))
    check = engine["test"] if fixed else profile_risk(test[:200], "radar-v1")
    diff = np.abs(recomputed[: len(check)] - check)
    out.append(f"Check: radar-v1's defaults recomputed from features match scan on "
               f"{int(np.sum(diff <= 1e-9))} of {len(check)} test pairs (largest difference "
               f"{float(np.max(diff, initial=0.0)):.2e}; features use margin 2, the scan git's "
               "abutting rule since airspace-2026.11.2).")  # fmt: skip
    if args.artefact:
        provenance = {
            "repository": tune[0].raw["repo"],
            "train": f"both pull requests merged before {args.cut}",
            "firstMerge": min(p.merged_at for p in train),
            "lastMerge": max(p.merged_at for p in train),
            "pairs": len(train),
            "conflicts": int(a_train.labels.sum()),
            "sampling": "stratified (file-sharing / disjoint), weighted by 1/inclusion",
            "splitSeed": args.seed,
            "miner": "manage.py backtest_conflicts (overlap-radar/backtest-pair@1)",
        }
        metrics: dict[str, Any] = {"setting": setting_json, "traffic": fit_ta, "resolution": fit_ra}
        if fixed:
            metrics["risk"] = "scan(profile='radar-v1', engine='reference'), default options"
        fits: dict[str, dict[str, Any]] = {
            "isotonic": {"x": list(iso.x), "y": list(iso.y)},
            "platt": {"a": platt.a, "b": platt.b},
        }
        for kind, params in fits.items():
            artefact = CalibrationArtefact(
                kind=kind,  # type: ignore[arg-type]
                profile="radar-v1",
                scorer_version=SCORER_VERSION,
                params=params,
                provenance=provenance,
                fitted_on=f"{tune[0].raw['repo']} train slice (< {args.cut})",
                metrics=metrics,
            )
            target = Path(args.artefact.replace(".json", f"-{kind}.json"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(artefact_to_json(artefact) + "\n", encoding="utf-8")
            out.append(f"Calibration artefact {artefact.digest} written to {target}.")
    out.append(f"Run time {time.perf_counter() - started:.0f} s.")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
