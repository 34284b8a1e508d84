#!/usr/bin/python3
"""An RDP accountant for the Poisson-subsampled Gaussian mechanism, as a DP library would ship
one, in the shape `rdpaudit` runs as a custom bound's `command` (docs/bounds.md, section 5).

Reads rdpaudit's JSON on stdin (every scenario's resolved parameters and the orders) and writes
{"values": [[R(alpha) per order] per scenario]} on stdout: T times the RDP of one step of the
sampled Gaussian mechanism with sampling rate q and noise sigma in units of the step's
sensitivity (Mironov, Talwar, Zhang 2019, "Renyi Differential Privacy of the Sampled Gaussian
Mechanism", Section 3.3: at integer alpha the exact binomial expansion
    A_alpha = sum_k C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k) / (2 sigma^2)),
    R(alpha) = log(A_alpha) / (alpha - 1),
for the add/remove relation). null (not applicable) at fractional orders, for another
relation or another sampling scheme. numpy and scipy only.

Usage: sgm_rdp.py [--scale F] < input.json  (F multiplies every value: 0.5 halves them)
       sgm_rdp.py --csv KEY=V1,V2 --q Q --sigma S --alphas A1,A2 (prints a values_file; see
       experiments/accountant_values_file.toml)
"""
import argparse
import json
import sys

import numpy as np
from scipy.special import gammaln, logsumexp


def sgm_rdp(q, sigma, alpha):
    """RDP of one step of the Poisson-subsampled Gaussian at integer alpha >= 2."""
    k = np.arange(alpha + 1, dtype=float)
    log_binom = gammaln(alpha + 1) - gammaln(k + 1) - gammaln(alpha - k + 1)
    with np.errstate(divide="ignore"):  # q = 1: log(1 - q) = -inf, only k = alpha remains
        terms = (log_binom + (alpha - k) * np.log1p(-q) + k * np.log(q)
                 + (k * k - k) / (2.0 * sigma * sigma))
    return float(logsumexp(terms)) / (alpha - 1)


def scenario_values(scenario, orders, scale):
    if scenario["scheme"] != "poisson" or scenario["adjacency"] != "add_remove":
        return [None] * len(orders)
    q = scenario["q"]
    # The noise in units of one step's sensitivity: the sigma of the sampled Gaussian
    # mechanism (Opacus' and dp_accounting's z when the sensitivity is the clip norm C).
    sigma = scenario["noise"]["step_noise_ratio"]
    out = []
    for alpha in orders:
        if alpha != int(alpha) or alpha < 2:
            out.append(None)
        else:
            out.append(scale * scenario["T"] * sgm_rdp(q, sigma, int(alpha)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--csv", help="KEY=V1,V2,...: print a values_file over these values of T")
    parser.add_argument("--q", type=float)
    parser.add_argument("--sigma", type=float)
    parser.add_argument("--alphas")
    args = parser.parse_args()
    if args.csv:
        key, steps = args.csv.split("=")
        alphas = [float(a) for a in args.alphas.split(",")]
        print(f"{key},alpha,value")
        for t in steps.split(","):
            for a in alphas:
                v = args.scale * int(t) * sgm_rdp(args.q, args.sigma, int(a))
                print(f"{t},{a:g},{v!r}")
        return
    request = json.load(sys.stdin)
    orders = request["orders"]
    values = [scenario_values(s, orders, args.scale) for s in request["scenarios"]]
    json.dump({"values": values}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
