"""Suggested names from the end of the Blood Royale rulebook ("Some Tips For Naming")."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CountryNames:
    dynastic: tuple[str, ...]
    male: tuple[str, ...]
    female: tuple[str, ...]


COUNTRIES: dict[str, CountryNames] = {
    "England": CountryNames(
        ("Plantagenet", "Tudor", "York", "Lancaster", "Essex", "Percy"),
        ("Edward", "John", "Edmund", "Alfred", "William", "Stephen"),
        ("Mary", "Elizabeth", "Anne", "Maud", "Mathilde"),
    ),
    "France": CountryNames(
        ("Anjou", "Martel", "Bourbon", "Guise", "Angevin", "Nevers"),
        ("Jean", "Louis", "William", "Robert", "Charles", "Henri"),
        ("Louise", "Marie", "Charlotte", "Isabelle", "Odette", "Philippa"),
    ),
    "Germany": CountryNames(
        ("Hapsburg", "Welf", "Wettin", "Wittlesbach", "Hohenzollern", "Luxemburg"),
        ("Maximillian", "Charles", "Ferdinand", "Frederick", "Karl", "Wilhelm"),
        ("Anna", "Mary", "Florenz", "Catharine", "Elizabet", "Mathilde"),
    ),
    "Italy": CountryNames(
        ("Visconti", "Medici", "Ordelaffi", "Orsini", "Savoy", "Sforza"),
        ("Luigi", "Giovanni", "Giuseppe", "Bernadino", "Bartolomeo", "Francis"),
        ("Carlotta", "Julianna", "Maria", "Anna", "Blanche", "Joanna"),
    ),
    "Spain": CountryNames(
        ("de Silva", "de Idiaquez", "Fajardo", "de Mendoza", "de Guzman", "Toledo"),
        ("Juan", "Fernando", "Carlos", "Francisco", "Sebastian", "Miguel"),
        ("Carlotta", "Isabella", "Maria", "Jeanne", "Eugenia", "Sofia"),
    ),
}

COUNTRIES.update(
    {
        "Austria": CountryNames(
            ("Habsburg", "Babenberg"), ("Maximilian", "Philip", "Ferdinand", "Rudolf"), ("Maria", "Margaret", "Anna", "Eleanor")
        ),
        "Turkey": CountryNames(
            ("Osman", "Karaman"), ("Bayezid", "Selim", "Suleiman", "Murad", "Mehmed"), ("Hafsa", "Mihrimah", "Fatma", "Zeynep")
        ),
        "Sweden": CountryNames(("Vasa", "Sture"), ("Gustav", "Erik", "Johan", "Karl"), ("Katarina", "Cecilia", "Anna", "Sofia")),
        "Russia": CountryNames(
            ("Rurik", "Romanov"), ("Ivan", "Vasily", "Fyodor", "Dmitri"), ("Elena", "Anastasia", "Maria", "Irina")
        ),
    }
)

BLOOD_ROYALE_CROWNS: tuple[str, ...] = ("England", "France", "Germany", "Italy", "Spain")
EU_CROWNS: tuple[str, ...] = ("France", "England", "Spain", "Austria", "Turkey", "Sweden", "Russia")

_GENERIC = CountryNames(("Nobile",), ("Henry", "Peter", "Thomas", "Hugh"), ("Agnes", "Joan", "Margaret", "Alice"))


def names_for(crown: str) -> CountryNames:
    return COUNTRIES.get(crown, _GENERIC)


def given_name(crown: str, sex: str, index: int) -> str:
    """A suggested Christian name: the index-th of the country's list (wrapping)."""
    pool = names_for(crown).male if sex == "M" else names_for(crown).female
    return pool[index % len(pool)]


def spouse_dynastic_name(crown: str, avoid: str) -> str:
    """A dynastic name for a created spouse: the country's first suggestion that differs."""
    for name in names_for(crown).dynastic:
        if name != avoid:
            return name
    return _GENERIC.dynastic[0] if avoid != _GENERIC.dynastic[0] else "Nobile di Corte"
