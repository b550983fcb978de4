"""The 0.975 quantiles of Student's t in macro `t_critical_975` (macros/history.sql).

Prints the exact table for df 1-30 (scipy, 9 decimals) and checks that the
four-term Cornish-Fisher expansion the macro uses from df 31 on is within
1e-6 of scipy's quantile for every df up to 10^6 (beyond, both are 1.959964
to far more digits than a 95% interval needs). Run once when the macro
changes (scipy is a dev dependency):

    .venv/bin/python scripts/t_quantiles.py
"""

from __future__ import annotations

from scipy import stats

TABLE_MAX_DF = 30
TOLERANCE = 1e-6
Z = stats.norm.ppf(0.975)
# Cornish-Fisher (Fisher 1925) terms of the t quantile in powers of 1/df
G = (
    (Z**3 + Z) / 4,
    (5 * Z**5 + 16 * Z**3 + 3 * Z) / 96,
    (3 * Z**7 + 19 * Z**5 + 17 * Z**3 - 15 * Z) / 384,
    (79 * Z**9 + 776 * Z**7 + 1482 * Z**5 - 1920 * Z**3 - 945 * Z) / 92160,
)


def expansion(df: float) -> float:
    return Z + sum(g / df ** (i + 1) for i, g in enumerate(G))


def main() -> None:
    print("table (df, t):")
    print(", ".join(f"({df}, {stats.t.ppf(0.975, df):.9f})" for df in range(1, TABLE_MAX_DF + 1)))
    print(f"z = {Z:.15f}; g = " + ", ".join(f"{g:.15f}" for g in G))
    worst = max(
        (abs(expansion(df) - stats.t.ppf(0.975, df)), df)
        for df in [*range(TABLE_MAX_DF + 1, 2001), *range(2001, 1_000_001, 997)]
    )
    print(f"largest error of the expansion from df {TABLE_MAX_DF + 1}: {worst[0]:.2e} at df {worst[1]}")
    assert worst[0] < TOLERANCE


if __name__ == "__main__":
    main()
