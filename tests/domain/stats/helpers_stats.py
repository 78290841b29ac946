"""Hand-built columns and briefs for the statistical family's tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Col:
    name: str
    description: str = ""


@dataclass(frozen=True)
class Data:
    name: str
    columns: tuple[Col, ...]
    path: Path = Path("data.csv")
    description: str = ""


@dataclass(frozen=True)
class Brief:
    query: str
    datasets: tuple[Data, ...]
    domain_knowledge: str = ""
    workflow_tags: str = ""
    question_type: str = ""
    task_id: str = "t/0/0"
    facts: tuple = field(default_factory=tuple)


FISH = Data("fish.csv", (
    Col("HYBAS_ID", "Identifier for hydrological basins"),
    Col("BAMM_speciation", "average speciation rates of species within each sub-basin"),
    Col("BEL_evol", "Rates of Body Elongation evolution"),
    Col("MBL_evol", "Rates of Maximum Body Length evolution"),
    Col("OGP_evol", "Rates of Oral Gape Position Evolution"),
    Col("diversity", "Species diversity"),
))

NLS = Data("nls.csv", (
    Col("GENDER", "Gender of the Respondent (MALE or FEMALE)"),
    Col("AGE", "The age of the respondent in the year 1989"),
    Col("INCOME", "The income of the respondent in the year 1989"),
    Col("DISSAVED", "A boolean variable that equals 1 if the respondent took more money out "
                    "of than put into savings and equals 0 otherwise"),
    Col("SAMESAVE", "A boolean variable that equals 1 if the respondent's savings level did "
                    "not change, and is 0 otherwise"),
    Col("BMI", "Body mass index of the respondent"),
    Col("BLACK", "A boolean variable that indicated if the respondent belongs to the black "
                 "race or not"),
))
NLS_KNOWLEDGE = "Spending and saving behavior can be used as proxies for Time preference."
