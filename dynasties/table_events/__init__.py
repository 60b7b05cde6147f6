"""The dynasties' table events (``campaign.table_events``): what the board and the cards decide, one
declaration each, grouped by what they touch. Importing this package declares them all
(``DynastiesConfig.ready``)."""

from dynasties.table_events import (
    captures,
    crowns,
    deaths,
    eu_monarchs,
    interception,
    minor_houses,
    pretenders,
    provinces,
    titles,
)

__all__ = ["captures", "crowns", "deaths", "eu_monarchs", "interception", "minor_houses", "pretenders", "provinces", "titles"]
