"""Blind check of `mempalace wake-up --wing W --json` on real conversations.

Builds 10 "project palaces" in a temp dir through the CLI only:
  * all 10 LoCoMo conversations (/work/shared/data/locomo10.json), untrimmed, each
    session written as a plain-text transcript (`Date: YYYY-MM-DD` first line,
    `Speaker: text` lines) and ingested as one wing `convNN` per conversation;
    palace k holds conversations k and k+1 (mod 10), odd palaces also k+4, so each
    palace has 2 or 3 LoCoMo wings (25 in all, each conversation in 2-3 palaces);
  * palaces 1, 5 and 9 also ingest the shared samples (/work/shared/data/transcripts),
    which add wings slack, spotter, synthetic_project, codex_cli and gemini_cli.
Rooms and halls are whatever ingest chose (MEMPALACE_EMBEDDER=hash, no model).
Project wings = the LoCoMo wings + slack + spotter (31).  Expected answers come
from `mempalace export` (a drawer's date: conversation_date, else filed_at's day),
never from wake-up.  Per project wing:
  (a) at the default budget, the `## Active rooms` section names the 3 rooms with
      most drawers dated in the 30 days up to the wing's newest drawer (ties at
      rank 3: any of them; the window may start 30 or 29 days back, either passes);
  (b) the newest hall_facts drawer (same-day ties: any) is in `drawer_ids` at the
      default budget; wings with no hall_facts drawer are n/a;
  (c) at 300, 800 (default) and 1500: `wings` == [W], no drawer id of another
      wing, no room of another wing in the rooms section, no snippet found only
      in other wings' drawers, no other wing's name (outside `tunnel to` lists) or
      speaker name that never occurs in W's own drawers;
  (d) reported `tokens` and our own estimate (CJK chars + ceil(rest / 4)) <= budget.
Also counted (ids): `drawer_ids` equals the ids tagged in the text, all real W drawers.
Run from the repository root:  .venv/bin/python benchmarks/wakeup_blind_real.py
A benchmark: always exits 0.  About 3 minutes on 2 cores (no trimming needed).
"""
import datetime as dt
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MP = str(ROOT / ".venv" / "bin" / "mempalace")
DATA = Path("/work/shared/data")
BUDGETS = (300, 800, 1500)
SAMPLE_PALACES = {0, 4, 8}
SAMPLE_PROJECT_WINGS = ("slack", "spotter")
IDENTITY = "I am Rin (凛), 一个开发者. I keep my friends' chats and my coding notes here.\n"
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
ITEM = re.compile(r"^- (\d{4}-\d\d-\d\d) · (.*?) · (.*) \[(drawer_\w+)\]$")
ROOM = re.compile(r"^- (.+?): (\d+) drawers?, newest (\S+?)(?:; tunnel to (.*))?$")


def cli(env, palace, *args):
    out = subprocess.run([MP, "--palace", palace, *args], env=env, cwd=ROOT,
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{args[0]} failed: {out.stderr.strip()[-300:]}")
    return json.loads(out.stdout) if "--json" in args else out.stdout


def est_tokens(text):
    cjk = len(CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def norm(s):
    return " ".join(s.split())


def word_in(word, text):
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text) is not None


def write_locomo(src):
    """One folder per conversation, one dated plain-text file per session."""
    wings = []
    for conv in json.loads((DATA / "locomo10.json").read_text(encoding="utf-8")):
        c, wing = conv["conversation"], "conv" + conv["sample_id"].split("-")[1]
        (src / wing).mkdir(parents=True)
        for n in range(1, 1 + sum(re.fullmatch(r"session_\d+", k) is not None for k in c)):
            when = c[f"session_{n}_date_time"].split(" on ")[1]
            day = dt.datetime.strptime(when, "%d %B, %Y").date()
            lines = [f"Date: {day}", ""] + [f"{t['speaker']}: {t['text']}" for t in c[f"session_{n}"]]
            (src / wing / f"session_{n:02d}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        wings.append(wing)
    return wings


def day_of(row):
    return dt.date.fromisoformat((row["conversation_date"] or row["filed_at"])[:10])


def expected(rows, wing):
    mine = [r for r in rows if r["wing"] == wing]
    newest = max(day_of(r) for r in mine)
    windows = {span: Counter(r["room"] for r in mine if day_of(r) >= newest - dt.timedelta(days=span))
               for span in (30, 29)}
    facts = [r for r in mine if r["hall"] == "hall_facts"]
    top = max((day_of(r) for r in facts), default=None)
    return dict(newest=newest, windows=windows, facts={r["id"] for r in facts if day_of(r) == top})


def top3_ok(counts, shown):
    k = min(3, len(counts))
    cut = sorted(counts.values(), reverse=True)[k - 1] if k else 0
    must = {r for r, c in counts.items() if c > cut}
    tied = {r for r, c in counts.items() if c == cut}
    return must <= shown and len(tied & shown) >= k - len(must)


def ranked(counts):
    return sorted(counts.items(), key=lambda kv: -kv[1])[:5]


def parse(text):
    """Rooms section {room: (count, tunnels)} and item lines [(room, snippet, id)]."""
    rooms, items, section = {}, [], None
    for line in text.splitlines():
        if line.startswith("#"):
            section = line
            continue
        if section and "Active rooms" in section and (m := ROOM.match(line)):
            rooms[m.group(1)] = (int(m.group(2)), m.group(4) or "")
        elif m := ITEM.match(line):
            items.append((m.group(2), m.group(3), m.group(4)))
    return rooms, items


def check_wing(rows, wing, env, palace, log):
    exp = expected(rows, wing)
    by_id = {r["id"]: r for r in rows}
    own_text = norm(" ".join(r["content"] for r in rows if r["wing"] == wing)) + " " + IDENTITY
    own_rooms = {r["room"] for r in rows if r["wing"] == wing}
    others = {r["wing"] for r in rows} - {wing}
    other_text = {w: norm(" ".join(r["content"] for r in rows if r["wing"] == w)) for w in others}
    names = {s.strip() for r in rows if r["wing"] != wing
             for s in (r["metadata"].get("speakers") or "").split(",") if len(s.strip()) > 2}
    runs = {b: cli(env, palace, "wake-up", "--wing", wing, "--tokens", str(b), "--json")
            for b in BUDGETS if b != 800}
    runs[800] = cli(env, palace, "wake-up", "--wing", wing, "--json")  # the default budget
    leaks, id_bad, d_ok = set(), [], {}
    for bud, res in runs.items():
        text, ids = res["text"], res["drawer_ids"]
        rooms, items = parse(text)
        if res.get("wings") != [wing]:
            leaks.add(f"wings={res.get('wings')}")
        tagged = re.findall(r"\[(drawer_\w+)\]", text)
        for i in set(ids) | set(tagged):
            if i in by_id and by_id[i]["wing"] != wing:
                leaks.add(f"id {i} ({by_id[i]['wing']})")
        bad = [i for i in ids if i not in by_id or by_id[i]["wing"] != wing]
        if bad or ids != tagged:
            id_bad.append(f"{bud}: {bad[:2] if bad else 'drawer_ids != ids in text'}")
        leaks.update(f"room {r}" for r in rooms if r not in own_rooms)
        for _, snip, _ in items:
            s = norm(snip).rstrip("…").strip()
            if len(s) >= 20 and s not in own_text:
                hit = [w for w, t in other_text.items() if s in t]
                leaks.update(f"snippet from {w}" for w in hit)
        bare = "\n".join(re.sub(r"; tunnel to .*$", "", ln) for ln in text.splitlines())
        leaks.update(f"wing {w}" for w in others if word_in(w, bare) and not word_in(w, own_text))
        leaks.update(f"name {n}" for n in names if word_in(n, bare) and not word_in(n, own_text))
        d_ok[bud] = res["tokens"] <= bud and est_tokens(text) <= bud
        if abs(est_tokens(text) - res["tokens"]) > 2:
            log.append(f"    note: budget {bud}: reported {res['tokens']} tokens, own estimate {est_tokens(text)}")
    text, ids = runs[800]["text"], runs[800]["drawer_ids"]
    rooms, _ = parse(text)
    a30, a29 = (top3_ok(exp["windows"][s], set(rooms)) for s in (30, 29))
    a = a30 or a29
    b = None if not exp["facts"] else bool(exp["facts"] & set(ids))
    c = not leaks
    log.append(f"  {wing} (newest {exp['newest']}): a {'ok' if a else 'FAIL'}"
               f" | b {'n/a' if b is None else 'ok' if b else 'FAIL want one of ' + str(sorted(exp['facts']))}"
               f" | c {'ok' if c else 'FAIL ' + str(sorted(leaks))[:300]}"
               f" | d " + " ".join(f"{k}:{runs[k]['tokens']}{'' if v else '!'}" for k, v in sorted(d_ok.items()))
               + f" | ids {'ok' if not id_bad else 'FAIL ' + str(id_bad)[:200]}")
    if not a:
        log.append(f"    expected (30 days) {ranked(exp['windows'][30])}; shown {[(r, n) for r, (n, _) in rooms.items()]}")
    elif a != a30:
        log.append(f"    note: passes only with a 29-day window; 30-day counts {ranked(exp['windows'][30])}")
    wrong = {r: (n, exp["windows"][30].get(r), exp["windows"][29].get(r)) for r, (n, _) in rooms.items()
             if n not in (exp["windows"][30].get(r), exp["windows"][29].get(r))}
    if wrong:
        log.append(f"    note: room counts shown vs expected (30d, 29d): {wrong}")
    r300, _ = parse(runs[300]["text"])
    log.append(f"    30-day top {ranked(exp['windows'][30])[:4]}; at 300: rooms {len(r300)}, "
               f"top-3 {'in' if top3_ok(exp['windows'][30], set(r300)) else 'OUT'}"
               f", newest fact {'n/a' if b is None else 'in' if exp['facts'] & set(runs[300]['drawer_ids']) else 'OUT'}"
               f"; identity at 800 {'in' if IDENTITY.strip() in text else 'OUT'}")
    return a, b, c, d_ok, not id_bad


def run_palace(k, tmp, src, conv_wings):
    home = Path(tmp) / f"p{k + 1}"
    home.mkdir()
    (home / "identity.md").write_text(IDENTITY, encoding="utf-8")
    env = dict(os.environ, MEMPALACE_HOME=str(home), MEMPALACE_EMBEDDER="hash")
    palace = str(home / "palace")
    convs = [conv_wings[k], conv_wings[(k + 1) % 10]] + ([conv_wings[(k + 4) % 10]] if k % 2 else [])
    log = [f"palace {k + 1}: {convs}{' + shared samples' if k in SAMPLE_PALACES else ''}"]
    results = []
    try:
        if k in SAMPLE_PALACES and k != 4:   # samples first in palaces 1 and 9, last in 5
            cli(env, palace, "ingest", str(DATA / "transcripts"), "--json")
        for w in convs:
            cli(env, palace, "ingest", str(src / w), "--wing", w, "--json")
        if k == 4:
            cli(env, palace, "ingest", str(DATA / "transcripts"), "--json")
        cli(env, palace, "export", str(home / "export.jsonl"))
        rows = [json.loads(l) for l in (home / "export.jsonl").read_text(encoding="utf-8").splitlines()]
        targets = convs + (list(SAMPLE_PROJECT_WINGS) if k in SAMPLE_PALACES else [])
        have = {r["wing"] for r in rows}
        log.append(f"  {len(rows)} drawers; wings {sorted(have)}")
        for w in targets:
            if w not in have:
                log.append(f"  SETUP WARNING: wing {w} not in the export")
                continue
            try:
                results.append(check_wing(rows, w, env, palace, log))
            except Exception as exc:  # a benchmark reports, it does not crash
                log.append(f"  {w}: ERROR {exc}")
                results.append((False, False, False, {b: False for b in BUDGETS}, False))
    except Exception as exc:
        log.append(f"  ERROR: {exc}")
    return log, results


def main():
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        conv_wings = write_locomo(src)
        with ThreadPoolExecutor(2) as pool:
            out = list(pool.map(lambda k: run_palace(k, tmp, src, conv_wings), range(10)))
    res = [r for _, rs in out for r in rs]
    print("\n".join(line for log, _ in out for line in log))
    n = len(res)
    a, c, ids = (sum(bool(r[i]) for r in res) for i in (0, 2, 4))
    bs = [r[1] for r in res if r[1] is not None]
    d = sum(v for r in res for v in r[3].values())
    print(f"({time.time() - t0:.0f} s; b counts only the {len(bs)} wings that have a hall_facts drawer)")
    print(f"wake-up blind check on real data: a {a}/{n}, b {sum(bs)}/{len(bs)}, c {c}/{n}, "
          f"d {d}/{n * len(BUDGETS)}; ids valid {ids}/{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
