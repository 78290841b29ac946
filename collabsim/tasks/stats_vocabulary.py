"""The study domains of the generated statistical suite: its columns, terms and groups.

Every generated statistical task (:mod:`collabsim.tasks.stats_generator`) draws its columns
from one :class:`StudyDomain`: continuous measures (exposures, outcomes and confounders with
a plausible scale), a pair of similar-sounding continuous predictors, a pair of
similar-sounding continuous outcomes, a pair of similar-sounding binary outcomes, a pair of
similar-sounding binary groups, a binary moderator, a coded category with three named levels
and a binary outcome whose share is asked. A query names a *pair* by its shared term only
("screen time"), so which column is meant is a reading of the term; a coded category's
levels are named in queries ("rural respondents") but the codes are in the codebook only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Measure:
    """A column of a generated table.

    Attributes:
        name: Column name.
        description: Column description (metadata).
        term: How queries and golds name it ("weekly exercise").
        mean: Mean of its scale (continuous measures; 0 for binary ones).
        sd: Standard deviation of its scale (1 for binary ones).
        decimals: Decimals written to the CSV.
    """

    name: str
    description: str
    term: str
    mean: float = 0.0
    sd: float = 1.0
    decimals: int = 2


@dataclass(frozen=True)
class Pair:
    """Two similar-sounding columns a query names by one ``term``."""

    term: str
    members: tuple[Measure, Measure]


@dataclass(frozen=True)
class Group:
    """A binary group column (1 = ``yes``, 0 = ``no``) named by its two labels."""

    measure: Measure
    yes: str
    no: str


@dataclass(frozen=True)
class Coded:
    """A category coded 1..3; ``levels[k]`` is the name of code ``k + 1`` (codebook only)."""

    measure: Measure
    levels: tuple[str, str, str]


@dataclass(frozen=True)
class StudyDomain:
    """The vocabulary of one study domain (see the module docstring)."""

    name: str
    unit: str
    description: str
    knowledge: str
    measures: tuple[Measure, ...]
    outcomes: tuple[Measure, ...]
    confounders: tuple[Measure, ...]
    predictor_pair: Pair
    outcome_pair: Pair
    binary_pair: Pair
    group_pair: tuple[str, Group, Group]
    moderator: Group
    coded: Coded
    share: Measure


def _m(name: str, description: str, term: str, mean: float = 0.0, sd: float = 1.0,
       decimals: int = 2) -> Measure:
    return Measure(name, description, term, mean, sd, decimals)


def _b(name: str, description: str, term: str) -> Measure:
    return Measure(name, description, term, 0.0, 1.0, 0)


HEALTH = StudyDomain(
    name="public health",
    unit="respondents",
    description="A cross-sectional health survey of adults: lifestyle, measurements at a "
                "clinic visit and diagnoses, one row per respondent.",
    knowledge="Binary columns are coded 1 = yes, 0 = no. Blood pressure was measured at the "
              "clinic visit.",
    measures=(
        _m("weekly_exercise_hours", "Hours of moderate or vigorous exercise per week", "weekly exercise", 4.0, 1.8),
        _m("sleep_duration_hours", "Average hours of sleep per night", "sleep duration", 7.0, 0.9),
        _m("fruit_vegetable_servings", "Servings of fruit and vegetables per day", "fruit and vegetable servings", 3.5, 1.2),
        _m("alcohol_consumption_units", "Units of alcohol per week", "alcohol consumption", 6.0, 3.0),
    ),
    outcomes=(
        _m("systolic_blood_pressure", "Systolic blood pressure at the visit (mmHg)", "systolic blood pressure", 128.0, 14.0, 1),
        _m("wellbeing_score", "Self-rated wellbeing on a 0-100 scale", "wellbeing", 62.0, 12.0, 1),
        _m("resting_heart_rate", "Resting heart rate at the visit (beats per minute)", "resting heart rate", 72.0, 9.0, 1),
    ),
    confounders=(
        _m("age", "Age of the respondent in years", "age", 48.0, 13.0, 0),
        _m("household_income_k", "Household income in thousands of dollars per year", "household income", 55.0, 18.0, 1),
    ),
    predictor_pair=Pair("screen time", (
        _m("leisure_screen_time", "Hours of screen time per day in leisure time", "leisure screen time", 3.0, 1.2),
        _m("total_screen_time", "Hours of screen time per day, work and leisure", "total screen time", 6.5, 2.0),
    )),
    outcome_pair=Pair("stress", (
        _m("perceived_stress_score", "Self-reported stress score on the 0-40 perceived stress scale", "perceived stress", 16.0, 6.0, 1),
        _m("stress_cortisol_nmol", "Morning salivary cortisol (nmol/L), a physiological stress marker", "stress cortisol level", 14.0, 4.0, 1),
    )),
    binary_pair=Pair("hypertension", (
        _b("hypertension_diagnosed", "Has ever been diagnosed with hypertension by a doctor (1 = yes, 0 = no)", "a diagnosis of hypertension"),
        _b("hypertension_measured", "Blood pressure at or above 140/90 mmHg at the visit (1 = yes, 0 = no)", "measured hypertension"),
    )),
    group_pair=("insured", Group(
        _b("insured_public", "Covered by public health insurance (1 = yes, 0 = no)", "public insurance"),
        "publicly insured respondents", "respondents without public insurance"), Group(
        _b("insured_private", "Covered by private health insurance (1 = yes, 0 = no)", "private insurance"),
        "privately insured respondents", "respondents without private insurance")),
    moderator=Group(_b("female", "Sex of the respondent (1 = female, 0 = male)", "sex"),
                    "women", "men"),
    coded=Coded(_b("area_type", "Type of area of residence (code 1, 2 or 3; see the survey codebook)", "area"),
                ("urban", "suburban", "rural")),
    share=_b("daily_smoker", "Currently smokes tobacco daily (1 = yes, 0 = no)", "daily smoking"),
)

EDUCATION = StudyDomain(
    name="education",
    unit="students",
    description="A survey of secondary-school students: study habits, family background, "
                "test results and school outcomes, one row per student.",
    knowledge="Binary columns are coded 1 = yes, 0 = no. Test scores are from the "
              "end-of-year assessment.",
    measures=(
        _m("homework_hours", "Hours spent on homework per week", "homework hours", 6.0, 2.5),
        _m("pleasure_reading_minutes", "Minutes of reading for pleasure per day", "pleasure reading", 25.0, 12.0, 1),
        _m("days_absent", "Days absent from school in the year", "days absent", 8.0, 4.0, 1),
        _m("private_tutoring_hours", "Hours of private tutoring per month", "private tutoring", 3.0, 2.0),
    ),
    outcomes=(
        _m("math_score", "End-of-year mathematics test score (0-100)", "math score", 61.0, 13.0, 1),
        _m("reading_score", "End-of-year reading test score (0-100)", "reading score", 64.0, 12.0, 1),
        _m("school_belonging", "Sense of school belonging index (0-50)", "school belonging", 30.0, 7.0, 1),
    ),
    confounders=(
        _m("parental_education_years", "Years of schooling of the more educated parent", "parental education", 13.0, 2.5, 1),
        _m("family_income_k", "Family income in thousands of dollars per year", "family income", 60.0, 20.0, 1),
    ),
    predictor_pair=Pair("sleep", (
        _m("sleep_school_nights", "Hours of sleep on school nights", "sleep on school nights", 7.4, 0.9),
        _m("sleep_weekends", "Hours of sleep on weekend nights", "sleep on weekends", 9.0, 1.1),
    )),
    outcome_pair=Pair("exam score", (
        _m("midterm_exam_score", "Score in the midterm exam of the school (0-100)", "midterm exam score", 55.0, 14.0, 1),
        _m("final_exam_score", "Score in the standardized final exam (0-100)", "final exam score", 58.0, 14.0, 1),
    )),
    binary_pair=Pair("dropout", (
        _b("dropout_next_year", "Left school within the next school year (1 = yes, 0 = no)", "dropout in the next year"),
        _b("dropout_intention", "Reported the intention to leave school early (1 = yes, 0 = no)", "dropout intention"),
    )),
    group_pair=("programme participants", Group(
        _b("mentoring_programme", "Took part in the mentoring programme (1 = yes, 0 = no)", "the mentoring programme"),
        "students in the mentoring programme", "students outside it"), Group(
        _b("summer_programme", "Took part in the summer learning programme (1 = yes, 0 = no)", "the summer programme"),
        "students in the summer programme", "students outside it")),
    moderator=Group(_b("first_generation", "First in the family to attend secondary school to the end (1 = yes, 0 = no)",
                       "first-generation status"), "first-generation students", "other students"),
    coded=Coded(_b("school_type", "Type of school attended (code 1, 2 or 3; see the study codebook)", "school type"),
                ("public", "charter", "private")),
    share=_b("repeated_grade", "Has repeated a grade at least once (1 = yes, 0 = no)", "a repeated grade"),
)

LABOUR = StudyDomain(
    name="labour economics",
    unit="workers",
    description="A labour-force survey of employed adults: jobs, hours, pay and training, "
                "one row per worker.",
    knowledge="Binary columns are coded 1 = yes, 0 = no. Wages are gross hourly wages in "
              "dollars.",
    measures=(
        _m("job_training_days", "Days of on-the-job training in the last year", "job training", 5.0, 2.5),
        _m("commute_time_minutes", "One-way commute time in minutes", "commute time", 28.0, 12.0, 1),
        _m("overtime_hours", "Paid overtime hours per week", "overtime hours", 3.0, 2.0),
        _m("firm_size_log", "Log of the number of employees of the firm", "firm size", 4.0, 1.3),
    ),
    outcomes=(
        _m("hourly_wage", "Gross hourly wage in dollars", "hourly wage", 24.0, 7.0),
        _m("job_satisfaction", "Job satisfaction on a 0-10 scale", "job satisfaction", 6.8, 1.6),
        _m("weekly_working_hours", "Usual weekly working hours", "weekly working hours", 38.0, 6.0, 1),
    ),
    confounders=(
        _m("work_experience_years", "Years of work experience", "work experience", 15.0, 8.0, 1),
        _m("years_of_schooling", "Years of schooling", "years of schooling", 13.5, 2.6, 1),
    ),
    predictor_pair=Pair("tenure", (
        _m("tenure_employer", "Years with the current employer", "tenure with the employer", 7.0, 4.0, 1),
        _m("tenure_position", "Years in the current position", "tenure in the position", 4.0, 2.5, 1),
    )),
    outcome_pair=Pair("earnings", (
        _m("annual_earnings_k", "Annual earnings from the main job in thousands of dollars", "annual earnings", 48.0, 15.0, 1),
        _m("bonus_earnings_k", "Annual bonus payments in thousands of dollars", "bonus earnings", 4.0, 2.0),
    )),
    binary_pair=Pair("quitting", (
        _b("quit_within_year", "Left the employer within the following year (1 = yes, 0 = no)", "quitting within a year"),
        _b("quit_intention", "Intends to leave the employer, as said at the interview (1 = yes, 0 = no)", "the intention to quit"),
    )),
    group_pair=("unionised", Group(
        _b("union_member", "Member of a trade union (1 = yes, 0 = no)", "union membership"),
        "union members", "non-members"), Group(
        _b("union_agreement_coverage", "Job covered by a union-negotiated collective agreement (1 = yes, 0 = no)",
           "collective-agreement coverage"),
        "workers covered by a union agreement", "workers without one")),
    moderator=Group(_b("part_time", "Works part time (1 = yes, 0 = no)", "part-time work"),
                    "part-time workers", "full-time workers"),
    coded=Coded(_b("sector_code", "Sector of the employer (code 1, 2 or 3; see the survey codebook)", "sector"),
                ("manufacturing", "service", "public-sector")),
    share=_b("remote_work", "Works from home at least one day a week (1 = yes, 0 = no)", "remote work"),
)

DOMAINS: tuple[StudyDomain, ...] = (HEALTH, EDUCATION, LABOUR)
