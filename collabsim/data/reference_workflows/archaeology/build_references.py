"""Build the packaged reference workflows of the 38 DiscoveryBench archaeology tasks.

Maintenance script (not imported by the library): ``python build_references.py`` rewrites
``<n>/0.json`` next to this file. The JSON files are what the package ships; validate them
with ``collabsim.metrics.reference.validate_reference`` (tests/metrics/test_reference.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent
TS = ("import pandas as pd\n"
      "df = pd.read_csv('time_series_data.csv')\n"
      "b = df[df['CE'] % 100 == 0].set_index('CE')\n")
GROWTH = (TS + "pct = (b['pollen_inter_100'].pct_change() * 100).round(1)\n"
          "pct.name = 'pollen_inter_100 % change per century'\n")
PCA = ("import numpy as np\nimport pandas as pd\n"
       "raw = pd.read_csv('capital.csv', decimal=',')\n"
       "X = raw.drop(columns=['group', 'color']).set_index('BCE')\n"
       "Z = (X - X.mean()) / X.std()\n"
       "U, S, Vt = np.linalg.svd(Z.to_numpy(), full_matrices=False)\n"
       "scores = pd.DataFrame(U[:, :2] * S[:2], index=X.index, columns=['PC1', 'PC2']).round(2)\n"
       "loadings = pd.DataFrame(Vt[:2].T, index=X.columns, columns=['PC1', 'PC2']).round(2)\n")

KW = {
    "AxesCelts": "AxesCelts|ZBeil", "Dagger": "Dagger|ZDolch", "HouseSize": "HouseSize|Zhausgr",
    "Depot": "Depot|ZHort", "HatchetSword": "HatchetSword|ZAxtSchwert",
    "MonumentCount": "MonumentCount|ZMonument", "CopperGold": "CopperGold|ZCU_AU",
    "Amber": "Amber|Zamber", "PotteryForm": "PotteryForm|ZKeform",
    "PotteryDecoration": "PotteryDecoration|Zkeverz", "Sickle": "Sickle|ZSichel",
    "Growth": "pollen_inter_100|pollen_grate_100|growth",
}


def sel(cols, lo=None, hi=None):
    win = f".loc[{lo}:{hi}]" if lo is not None else ""
    return TS + f"print(b[{cols!r}]{win}.to_string())\n"


def spec(cat, rel, variables, years, load, compute, check_kw, ordinal=None, directions=(),
         window=None, desc_compute="", desc_check="", claim_years=None):
    return dict(category=cat, relation=rel, variables=variables, years=years, load=load,
                compute=compute, check_kw=check_kw, ordinal=ordinal,
                directions=list(directions), window=window, desc_compute=desc_compute,
                desc_check=desc_check, claim_years=claim_years or years)


def peak(col, expected, years, first=False):
    code = TS + f"s = b[{col!r}]\nprint('peak:', int(s.idxmax()), 'value', round(float(s.max()), 2))\n"
    return spec("first_peak" if first else "peak", "first_peak" if first else "peak", [col], years,
                ([KW[col]], sel([col]), [col]), ([r"idxmax|max|peak|sort"], code, [expected]),
                ["peak|highest|most|max"], desc_compute=f"Find the 100-year bin where {col} is highest")


def first_change(col, up, expected, years):
    op = "> 0" if up else "< 0"
    code = TS + (f"d = b[{col!r}].diff()\nyears = [int(y) for y in d[d {op}].index]\n"
                 f"print('first {'rise' if up else 'fall'}:', years[0], 'all:', years[:5])\n")
    rel = "first_rise" if up else "first_fall"
    return spec(rel, rel, [col], years, ([KW[col]], sel([col]), [col]),
                (["diff|shift|pct_change"], code, [expected]), ["first"], ordinal=1,
                desc_compute=f"Find the first 100-year bin where {col} {'rises' if up else 'falls'}")


T: dict[int, dict[str, Any]] = {}
T[0] = peak("AxesCelts", "-3200", [-3200])
T[1] = first_change("Dagger", True, "-2300", [-2300, -2200])
T[2] = first_change("HouseSize", True, "-3500", [-3400])
T[26] = first_change("HouseSize", True, "-3500", [-3400])
T[3] = peak("Depot", "-1100", [-1100])
T[12] = peak("Depot", "-1100", [-1100])
T[6] = peak("MonumentCount", "-2700", [-2800])
T[32] = peak("AxesCelts", "-3200", [-3300])
T[33] = first_change("Sickle", False, "-2300", [-2400])

T[7] = spec("first_peak", "first_peak", ["CopperGold"], [-3500, -3300],
            ([KW["CopperGold"]], sel(["CopperGold"], -4100, -3000), ["CopperGold"]),
            (["diff|idxmax|peak"], TS + "s = b['CopperGold']\nd = s.diff()\n"
             "up = d[d > 0.5].index[0]\nafter = s.loc[up:]\n"
             "drop = after.diff()[after.diff() < -0.5].index[0]\n"
             "print('first peak:', int(s.loc[up:drop].idxmax()))\n", ["-3500"]),
            ["first"], ordinal=1, desc_compute="Find the first local maximum of CopperGold")
T[8] = spec("peak", "peak", ["Amber"], [-3300, -3000],
            ([KW["Amber"]], sel(["Amber"], -4000, -2900), ["Amber"]),
            (["idxmax|max|mean"], TS + "s = b['Amber']\n"
             "print('mean by millennium:', s.groupby((s.index // 1000) * 1000).mean().round(2).to_dict())\n"
             "print('all-time peak:', int(s.idxmax()), round(float(s.max()), 2))\n", ["-3300"]),
            ["millennium|peak|highest|stable"], desc_compute="Compare Amber by millennium and find its peak")
T[9] = spec("simultaneous", "simultaneous", ["MonumentCount", "CopperGold"], [-1500],
            ([KW["MonumentCount"], KW["CopperGold"]],
             sel(["MonumentCount", "CopperGold", "Amber"], -1600, -1100),
             ["MonumentCount", "CopperGold"]),
            (["sum|idxmax|diff"], TS + "social = b[['CopperGold', 'Amber', 'MonumentCount']].sum(axis=1)\n"
             "print('social capital peak:', int(social.idxmax()))\n"
             "d = b[['MonumentCount', 'CopperGold']].diff().loc[-1500:]\n"
             "both = d[(d > 0).all(axis=1)]\nprint('both increase at:', [int(y) for y in both.index])\n",
             ["-1400"]),
            ["simultan|together|while|both"], directions=["up", "up"],
            desc_compute="Sum social capital, find its peak and the bins where monuments and copper/gold both rise")
T[4] = spec("simultaneous", "simultaneous", ["Dagger", "HouseSize"], [-1100],
            ([KW["Dagger"], KW["HouseSize"]], sel(["Dagger", "HouseSize", "HatchetSword"], -1200, -500),
             ["Dagger", "HouseSize"]),
            (["diff"], TS + "d = b[['Dagger', 'HouseSize']].diff().loc[-1100:-500]\n"
             "both = d[(d < 0).all(axis=1)]\nprint('both decrease at:', [int(y) for y in both.index])\n",
             ["-1000"]),
            ["decreas|declin|simultan"], directions=["down", "down"],
            desc_compute="Find bins of the Younger Bronze Age where daggers and house size both fall")
T[5] = spec("simultaneous", "simultaneous", ["HatchetSword", "Dagger"], [-1700],
            ([KW["HatchetSword"], KW["Dagger"]], sel(["HatchetSword", "Dagger"], -1900, -1400),
             ["HatchetSword", "Dagger"]),
            (["diff"], TS + "d = b[['HatchetSword', 'Dagger']].diff().loc[-1800:-1500]\n"
             "print(d.round(2).to_string())\n"
             "print('dagger drop at:', int(d['Dagger'].idxmin()), 'hatchet rise at:', int(d['HatchetSword'].idxmax()))\n",
             ["-1700", "-1600"]),
            ["while|simultan|opposite|whereas"], directions=["up", "down"],
            desc_compute="Compare the century changes of hatchets/swords and daggers around 1700 BCE")
T[10] = spec("low_stable", "low_stable", ["MonumentCount"], [-1100],
             ([KW["MonumentCount"], KW["CopperGold"], KW["Amber"]],
              sel(["CopperGold", "Amber", "MonumentCount"], -1100, -500), ["MonumentCount"]),
             (["std|var|diff"], TS + "w = b[['CopperGold', 'Amber', 'MonumentCount']].loc[-1000:-500]\n"
              "print('std:', w.std().round(3).to_dict())\nprint('lowest fluctuation:', w.std().idxmin())\n"
              "print('monument change at:', int(b['MonumentCount'].loc[-1100:-500].diff().idxmin()))\n",
              ["lowest fluctuation: MonumentCount", "-1000"]),
             ["stable|low|fluctuat"], desc_compute="Compare level and fluctuation of social capital values 1100-500 BCE")
T[11] = spec("simultaneous", "simultaneous", ["PotteryForm", "PotteryDecoration"], [-1800],
             ([KW["PotteryForm"], KW["PotteryDecoration"]], sel(["PotteryForm", "PotteryDecoration"]),
              ["PotteryForm", "PotteryDecoration"]),
             (["diff"], TS + "d = b[['PotteryForm', 'PotteryDecoration']].diff()\n"
              "hit = d[(d['PotteryForm'] < -0.5) & (d['PotteryDecoration'] > 0.5)]\n"
              "print('form collapses while decoration rises at:', [int(y) for y in hit.index])\n",
              ["-1700"]),
             ["simultan|while|collapse"], directions=["down", "up"],
             desc_compute="Find bins where pottery form falls sharply while decoration rises")
T[30] = spec("simultaneous", "simultaneous", ["PotteryDecoration", "PotteryForm"], [-1700],
             ([KW["PotteryForm"], KW["PotteryDecoration"]], sel(["PotteryForm", "PotteryDecoration"]),
              ["PotteryForm", "PotteryDecoration"]),
             (["diff"], TS + "d = b[['PotteryForm', 'PotteryDecoration']].diff()\n"
              "hit = d[(d['PotteryDecoration'] > 0.5) & (d['PotteryForm'] < -0.5)]\n"
              "print('first opposite trend:', int(hit.index[0]))\n", ["-1700"]),
             ["first"], ordinal=1, directions=["up", "down"],
             desc_compute="Find the first bin where decoration rises and form falls")
T[27] = spec("simultaneous", "simultaneous", ["HouseSize", "Dagger"], [-1000],
             ([KW["HouseSize"], KW["Dagger"]], sel(["HouseSize", "Dagger"]), ["HouseSize", "Dagger"]),
             (["diff"], TS + "d = b[['HouseSize', 'Dagger']].diff()\n"
              "both = [int(y) for y in d[(d < 0).all(axis=1)].index]\n"
              "print('simultaneous decreases:', both, 'second:', both[1])\n", ["second: -1000"]),
             ["second"], ordinal=2, directions=["down", "down"],
             desc_compute="List bins where house size and daggers both fall; take the second")
T[28] = spec("simultaneous", "simultaneous", ["MonumentCount", "CopperGold"], [-1000],
             ([KW["MonumentCount"], KW["CopperGold"]],
              sel(["MonumentCount", "CopperGold", "Amber"], -1300, -700), ["MonumentCount", "CopperGold"]),
             (["diff|sum"], TS + "w = b[['MonumentCount', 'CopperGold', 'Amber']]\n"
              "d = w.assign(social=w.sum(axis=1)).diff()\n"
              "both = d[(d[['MonumentCount', 'CopperGold', 'social']] < -1).all(axis=1)]\n"
              "print('significant simultaneous decline at:', [int(y) for y in both.index])\n", ["-1000"]),
             ["simultan|declin|decreas"], directions=["down", "down"],
             desc_compute="Find bins where monuments, copper/gold and summed social capital all drop by more than 1")
T[29] = spec("simultaneous", "simultaneous", ["MonumentCount", "PotteryForm", "PotteryDecoration"], [-2800],
             ([KW["MonumentCount"], KW["PotteryForm"], KW["PotteryDecoration"]],
              sel(["MonumentCount", "PotteryForm", "PotteryDecoration"], -3000, -2500),
              ["MonumentCount", "PotteryForm", "PotteryDecoration"]),
             (["idxmax|diff"], TS + "peak = int(b['MonumentCount'].idxmax())\nprint('monument peak:', peak)\n"
              "d = b[['PotteryForm', 'PotteryDecoration']].diff().loc[peak - 100:peak]\n"
              "print(d.round(2).to_string())\n", ["monument peak: -2700", "-2800"]),
             ["declin|decreas|simultan"], directions=["up", "down", "down"],
             desc_compute="Find the monument-count peak and the pottery changes around it")
T[31] = spec("plateau", "plateau", ["PotteryDecoration"], [-1000],
             ([KW["PotteryDecoration"]], sel(["PotteryDecoration"], -1500, -500), ["PotteryDecoration"]),
             (["max|rolling|min"], TS + "s = b['PotteryDecoration']\n"
              "top = s[s >= s.max() - 1e-9]\nprint('highest sustained from:', int(top.index.min()), 'to', int(top.index.max()))\n",
              ["highest sustained from: -1000"]),
             ["sustain|stable|plateau"], desc_compute="Find where pottery decoration reaches its highest level and stays there")

T[13] = spec("growth_max", "growth_max", ["Growth"], [-1500, -1300],
             ([KW["Growth"]], GROWTH + "print(pct.loc[-2000:-1100].to_frame().to_string())\n", ["pollen_inter_100"]),
             (["idxmax|max|pct_change"], GROWTH + "print('highest growth 2000-1100 BCE:', int(pct.loc[-2000:-1100].idxmax()))\n",
              ["-1400"]), ["highest|max|window|2000"], window=[-2000, -1100],
             desc_compute="Percentage change of the 100-year smoothed openness per century; maximum in the window")
T[14] = spec("growth_dip_recovery", "growth_dip_recovery", ["Growth"], [-1300, -1100, -700],
             ([KW["Growth"]], GROWTH + "print(pct.loc[-1500:-500].to_frame().to_string())\n", ["pollen_inter_100"]),
             (["idxmax|idxmin|pct_change"], GROWTH + "w = pct.loc[-1500:-500]\n"
              "print('dip 1300-1100:', w.loc[-1300:-1100].round(1).to_dict())\n"
              "print('largest rise after the dip:', int(w.loc[-1000:].idxmax()))\n", ["-700"]),
             ["dip|decline|rise"], window=[-1500, -500],
             desc_compute="Growth per century from 1500 BCE: the dip and the largest rise after it")
T[34] = spec("growth_dip_recovery", "growth_dip_recovery", ["Growth"], [-1700, -1600, -1400],
             ([KW["Growth"]], GROWTH + "print(pct.loc[-1900:-1400].to_frame().to_string())\n", ["pollen_inter_100"]),
             (["idxmax|idxmin|pct_change"], GROWTH + "w = pct.loc[-1900:-1400]\n"
              "print('steepest decline:', int(w.idxmin()), 'highest peak:', int(w.idxmax()))\n",
              ["steepest decline: -1500", "highest peak: -1400"]),
             ["decline|dip|peak"], window=[-1900, -1400],
             desc_compute="Growth per century 1900-1400 BCE: steepest decline and highest peak")
T[35] = spec("growth_max", "growth_max", ["Growth"], [-4000, -3900],
             ([KW["Growth"]], TS + "print(b[['pollen_grate_100']].round(4).to_string())\n", ["pollen_grate_100"]),
             (["nlargest|sort|idxmax|max"], TS + "g = b['pollen_grate_100']\n"
              "print('highest growth centuries:', [int(y) for y in g.nlargest(3).index])\n", ["-3900"]),
             ["highest|max"], desc_compute="Rank centuries by the growth rate pollen_grate_100")
T[36] = spec("growth_max", "growth_max", ["Growth"], [-2900, -2800],
             ([KW["Growth"]], GROWTH + "print(pct.loc[-3000:-2000].to_frame().to_string())\n", ["pollen_inter_100"]),
             (["idxmax|max|pct_change"], GROWTH + "print('highest smoothed growth 3000-2000 BCE:', int(pct.loc[-3000:-2000].idxmax()))\n",
              ["-2800"]), ["highest|max|3000"], window=[-3000, -2000],
             desc_compute="Percentage change of the smoothed openness per century; maximum 3000-2000 BCE")
T[37] = spec("growth_min", "growth_min", ["Growth"], [-2500, -2300],
             ([KW["Growth"]], GROWTH + "print(pct.to_frame().to_string())\n", ["pollen_inter_100"]),
             (["idxmin|min|pct_change"], GROWTH + "print('greatest decline:', int(pct.idxmin()))\n", ["-2400"]),
             ["decline|lowest|min"], desc_compute="Percentage change of the smoothed openness per century; its minimum")

T[23] = spec("relationship", "relationship", ["MonumentCount", "AxesCelts"], [-3400, -3000],
             ([KW["MonumentCount"], KW["AxesCelts"]],
              sel(["MonumentCount", "AxesCelts", "HatchetSword", "Dagger", "HouseSize"], -3400, -3000),
              ["MonumentCount", "AxesCelts"]),
             (["diff|mean|corr"], TS + "w = b.loc[-3400:-3000]\n"
              "sym = w[['HatchetSword', 'Dagger', 'HouseSize']].sum(axis=1)\n"
              "print(w[['MonumentCount', 'AxesCelts']].assign(symbolic=sym).round(2).to_string())\n"
              "print('change -3400 to -3000:', (w.loc[-3000, ['MonumentCount', 'AxesCelts']] - w.loc[-3400, ['MonumentCount', 'AxesCelts']]).round(2).to_dict())\n",
              ["-3400", "-3000", "symbolic"]),
             ["increas|along|symbolic"], window=[-3400, -3000],
             desc_compute="Compare monuments, axes and summed symbolic capital 3400-3000 BCE")
T[24] = spec("relationship", "relationship", ["Amber", "MonumentCount"], [-3400, -3000],
             ([KW["Amber"], KW["MonumentCount"]], sel(["Amber", "MonumentCount"], -3400, -3000),
              ["Amber", "MonumentCount"]),
             (["mean|max|describe"], TS + "w = b.loc[-3400:-3000, ['Amber', 'MonumentCount']]\n"
              "print('mean 3400-3000 BCE:', w.mean().round(2).to_dict())\n"
              "print('overall mean:', b[['Amber', 'MonumentCount']].mean().round(2).to_dict())\n",
              ["mean 3400-3000 BCE", "Amber"]),
             ["high|large|many"], window=[-3400, -3000],
             desc_compute="Compare amber and monuments in 3400-3000 BCE with their overall level")
T[25] = spec("relationship", "relationship", ["Amber", "MonumentCount", "HouseSize"], [-3400, -3000],
             ([KW["Amber"], KW["MonumentCount"], KW["HouseSize"]],
              sel(["Amber", "MonumentCount", "HouseSize"], -3400, -3000),
              ["Amber", "MonumentCount", "HouseSize"]),
             (["diff|corr|iloc"], TS + "w = b.loc[-3400:-3000, ['Amber', 'MonumentCount', 'HouseSize']]\n"
              "print('change -3400 to -3000:', (w.iloc[-1] - w.iloc[0]).round(2).to_dict())\n",
              ["HouseSize': -1.86"]),
             ["decreas|rise|increas"], window=[-3400, -3000], directions=["up", "up", "down"],
             desc_compute="Change of amber, monuments and house size from 3400 to 3000 BCE")

PCA_PERIODS = {15: (-4000, -3500, [-4000, -3500]), 16: (-3400, -2300, [-3400, -3000, -2900, -2300]),
               17: (-2200, -1700, [-2200, -1700]), 18: (-1600, -1200, [-1600, -1500, -1400, -1200]),
               19: (-1100, -500, [-1100, -1000, -500])}
for n, (lo, hi, years) in PCA_PERIODS.items():
    code = PCA + f"print(scores.loc[{-lo}:{-hi}].to_string())\n"
    T[n] = spec("pca_scores", "pca_scores", ["PC1"] + (["PC2"] if n == 17 else []), years,
                (["capital|ZDolch|ZBeil"], PCA + "print(list(X.columns), X.shape)\n", ["ZDolch", "ZBeil"]),
                (["PCA|svd|PC1"], code, ["PC1", str(-hi)]), ["positive|negative|PC1"],
                desc_compute=f"PCA of the forms of capital over 100-year slices; PC scores for {-lo}-{-hi} BCE")
GROUPS = {20: ["ZMonument", "ZCU_AU", "Zamber"], 21: ["Zhausgr", "ZDolch", "ZAxtSchwert"],
          22: ["Zkeverz", "ZKeform"]}
GVARS = {20: ["MonumentCount", "CopperGold", "Amber"], 21: ["HouseSize", "Dagger", "HatchetSword"],
         22: ["PotteryDecoration", "PotteryForm"]}
for n, attrs in GROUPS.items():
    code = PCA + f"print(loadings.loc[{attrs!r}].to_string())\n"
    T[n] = spec("pca_loadings", "pca_loadings", GVARS[n], [],
                (["capital|" + "|".join(attrs)], PCA + "print(list(X.columns), X.shape)\n", attrs[:1]),
                (["PCA|svd|loading|components_"], code, attrs), ["positive|negative|opposite|PC1"],
                desc_compute="PCA of the forms of capital; loadings of the group's attributes on PC1 and PC2")


def build(n: int, s: dict[str, Any]) -> dict[str, Any]:
    load_kw, load_code, load_exp = s["load"]
    comp_kw, comp_code, comp_exp = s["compute"]
    claim_kw = ["|".join(str(-y) for y in s["claim_years"])] if s["claim_years"] else []
    nodes = [
        {"id": "load", "kind": "evidence",
         "description": "Load the data (decimal commas in capital.csv) and select the relevant column(s)",
         "keywords": load_kw, "evidence_code": load_code, "expected_output": load_exp},
        {"id": "compute", "kind": "evidence", "description": s["desc_compute"] or "Compute the answer",
         "keywords": comp_kw, "evidence_code": comp_code, "expected_output": comp_exp},
        {"id": "check", "kind": "reasoning",
         "description": s["desc_check"] or "Check the result against the query wording (ordinal, relation, period)",
         "keywords": s["check_kw"], "evidence_code": None, "expected_output": []},
        {"id": "claim", "kind": "reasoning", "description": "State the hypothesis with its period and variables",
         "keywords": claim_kw or [s["check_kw"][0]], "evidence_code": None, "expected_output": []},
    ]
    comp = {"variables": s["variables"], "relation": s["relation"], "years": s["years"],
            "tolerance_years": 100}
    if s["ordinal"] is not None:
        comp["ordinal"] = s["ordinal"]
    if s["directions"]:
        comp["directions"] = s["directions"]
    if s["window"]:
        comp["window"] = s["window"]
    return {"task_id": f"archaeology/{n}/0", "category": s["category"], "nodes": nodes,
            "edges": [["load", "compute"], ["compute", "check"], ["check", "claim"], ["compute", "claim"]],
            "paths": [["load", "compute", "check", "claim"], ["load", "compute", "claim"]],
            "completion": comp}


def main() -> None:
    """Write all 38 reference workflow files."""
    assert sorted(T) == list(range(38)), sorted(set(range(38)) - set(T))
    for n, s in T.items():
        path = OUT / str(n) / "0.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(build(n, s), indent=2) + "\n", encoding="utf-8")
    print("wrote", len(T))


if __name__ == "__main__":
    main()
