"""Write the sample's input: the seed's datasets A, B, C and customers from three systems.

``python -m samples.entity_merge.generate`` rewrites ``input/``; the files are kept in the
repository so that the demo needs no generation step. Customers: 1,000 people, of whom a
CRM knows 80 %, an ERP 70 % (e-mail in upper case, sometimes missing) and a support desk
60 % (phone numbers, e-mail sometimes missing); a few support contacts are deleted.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

INPUT = Path(__file__).parent / "input"
PEOPLE = 1_000
SEED = 7

SEED_DATASETS: dict[str, list[dict[str, Any]]] = {
    "A": [{"_id": "a1", "f1": 1}, {"_id": "a2", "f1": 2}],
    "B": [{"_id": "b1", "f1": 1, "f2": "x"}, {"_id": "b2", "f1": 3}],
    "C": [
        {"_id": "c1", "f3": "X"},
        {"_id": "c2", "_deleted": True, "f3": "Y"},
        {"_id": "c3", "_deleted": True, "f3": "X"},
    ],
}

FIRST = ["Ada", "Bo", "Cai", "Dag", "Eva", "Finn", "Gro", "Hans", "Ida", "Jon", "Kari", "Lars"]
LAST = ["Berg", "Dahl", "Lie", "Moen", "Nilsen", "Ruud", "Strand", "Vik"]


def customers() -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(SEED)
    crm: list[dict[str, Any]] = []
    erp: list[dict[str, Any]] = []
    support: list[dict[str, Any]] = []
    for n in range(PEOPLE):
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        email = f"{name.lower().replace(' ', '.')}.{n}@example.com"
        phone = f"+47 {40_000_000 + n * 37:08d}"
        if rng.random() < 0.8:
            crm.append({"_id": f"crm-{n:05d}", "name": name, "email": email, "phone": phone})
        if rng.random() < 0.7:
            entry: dict[str, Any] = {"_id": f"{100_000 + n}", "customer_name": name.upper()}
            if rng.random() < 0.9:
                entry["email"] = email.upper()
            erp.append(entry)
        if rng.random() < 0.6:
            contact: dict[str, Any] = {"_id": f"sup-{n:05d}", "phone": phone, "tickets": []}
            if rng.random() < 0.5:
                contact["email"] = email
            contact["tickets"] = [f"T{rng.randrange(10_000)}" for _ in range(rng.randrange(3))]
            if rng.random() < 0.03:
                contact["_deleted"] = True
            support.append(contact)
    return {"crm": crm, "erp": erp, "support": support}


def write(directory: Path, datasets: dict[str, list[dict[str, Any]]]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, entities in datasets.items():
        lines = ",\n".join(json.dumps(e, sort_keys=True) for e in entities)
        (directory / f"{name}.json").write_text(f"[\n{lines}\n]\n", encoding="utf-8")


def main() -> None:
    write(INPUT / "seed", SEED_DATASETS)
    write(INPUT / "customers", customers())


if __name__ == "__main__":
    main()
