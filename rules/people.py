"""Plain in-memory people: what the rules see of a character."""

from __future__ import annotations

from dataclasses import dataclass, field

MALE = "M"
FEMALE = "F"


@dataclass
class Person:
    id: int
    sex: str
    birth_year: int
    birth_order: int = 1
    father: int | None = None
    mother: int | None = None
    dynastic_name: str = ""
    alive: bool = True
    retired: bool = False
    prisoner: bool = False
    characteristics: dict[str, int] = field(default_factory=dict)
    legitimate: bool = True
    effective_age_offset: int = 0

    def age(self, year: int) -> int:
        return year - self.birth_year

    def effective_age(self, year: int) -> int:
        """BloodLine: never below 0."""
        return max(0, self.age(year) + self.effective_age_offset)

    @property
    def in_play(self) -> bool:
        """Alive and not retired from the game."""
        return self.alive and not self.retired

    def seniority(self) -> tuple[int, int, int]:
        return (self.birth_year, self.birth_order, self.id)
