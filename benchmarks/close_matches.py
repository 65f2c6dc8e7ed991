"""How well search tells close matches from nothing good: LoCoMo questions against the drawers that
hold their answers, and off-topic or nonsense queries that should find nothing close.

    python benchmarks/close_matches.py            # LoCoMo conversations 3-5 plus ../shared's transcripts

A result is close when it holds half of the query's words or is nearer in meaning than chance and
CLOSE_MIN (mempalace/palace/search.py). Printed: the share of questions with at least one close result,
the share of answer-holding results among the top 10 that are close, and for each off-topic query
how many of its 10 results are close (0 is right).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from locomo import build, evidence_sessions  # noqa: E402

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
OFF_TOPIC = ("xyzzyplughnonexistentword", "qwerty asdfgh zxcvb", "purple elephant quantum banana",
             "what is the airspeed velocity of an unladen swallow", "kubernetes helm chart values",
             "how do I bake sourdough bread", "GPU pricing for the inference cluster",
             "tax return deadline for freelancers", "best way to descale an espresso machine",
             "the mitochondria is the powerhouse of the cell", "Rust borrow checker lifetime error",
             "how many moons does jupiter have", "recipe for lasagna with bechamel", "zz top 1983 tour dates",
             "ferret grooming schedule", "blorp snarf wibble")
QUESTIONS_PER_CONVERSATION = 60


def main() -> None:
    os.environ["MEMPALACE_HOME"] = tempfile.mkdtemp(prefix="mempalace-close-")
    from mempalace import Palace
    from mempalace.ingest import ingest_paths

    samples = json.loads((SHARED / "locomo10.json").read_text(encoding="utf-8"))[2:5]
    with Palace.open(Path(os.environ["MEMPALACE_HOME"]) / "palace") as palace:
        build(palace, samples, Path(tempfile.mkdtemp()))
        ingest_paths(palace, [SHARED / "transcripts" / "slack_export" / "hfaran_testarchive",
                              *sorted((SHARED / "transcripts" / "claude_code").iterdir())])
        asked, with_close, answers, close_answers = 0, 0, 0, 0
        for sample in samples:
            for qa in sample["qa"][:QUESTIONS_PER_CONVERSATION]:
                hits = palace.search(qa["question"], limit=10)
                asked += 1
                with_close += any(h.close for h in hits)
                wanted = evidence_sessions(qa.get("evidence", []))
                found = next((h for h in hits if (h.source_file or "").split(".")[0] in wanted), None)
                if found:
                    answers += 1
                    close_answers += found.close
        print(f"{palace.count()} drawers; {asked} questions")
        print(f"questions with a close result: {with_close}/{asked} ({with_close / asked:.0%})")
        print(f"answer-holding results that are close: {close_answers}/{answers} ({close_answers / answers:.0%})")
        print("off-topic queries (close results of 10, best similarity):")
        for query in OFF_TOPIC:
            hits = palace.search(query, limit=10)
            print(f"  {sum(h.close for h in hits):2d}  {hits[0].similarity:5.2f}  {query}")


if __name__ == "__main__":
    main()
