"""Blind check of `mempalace wake-up --wing W --json` against its spec goals.

Builds 10 small scripted project palaces through the CLI only (dated drawers are
plain-text transcripts with a `Date: YYYY-MM-DD` first line, ingested per room;
each drawer is then put in its scripted hall with `mempalace move`).  Every
palace also holds a decoy wing with newer drawers, and palace 10 has two project
wings sharing the room `deploy`.  Expected answers come from the script's own
data, never from the tool, and per target wing it checks:
  (a) the 3 rooms with most drawers dated in the 30 days up to the wing's newest
      drawer appear in the wake-up's active-rooms section (default budget);
  (b) the newest hall_facts drawer of the wing is in `drawer_ids` and the text;
  (c) no drawer id, room name (only in other wings), ref tag or wing name of
      another wing appears (a tunnel naming a wing that shares a room is fine);
  (d) `tokens` (and our own estimate of the text) <= budget for 300, 800, 1500.
Notes (not scored): room counts shown vs expected, (a)/(b) at budget 300.
Run from the repository root:  python benchmarks/wakeup_blind.py
It is a benchmark: it always exits 0.  Needs no model (MEMPALACE_EMBEDDER=hash).
"""
import datetime as dt
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MP = str(ROOT / ".venv" / "bin" / "mempalace")
BUDGETS = (300, 800, 1500)
HALLS = {"f": "facts", "e": "events", "d": "discoveries", "p": "preferences", "a": "advice"}
VOCAB = {
    "en": ("cache queue retry schema index latency rollout budget vendor invoice "
           "refactor token session mobile banner coupon shipping webhook lambda "
           "cursor migration tenant audit quota sprint palette widget gateway "
           "sandbox ledger payload throttle backlog hotfix pager metric cluster").split(),
    "es": ("pedido factura cliente envío almacén precio descuento pago tarjeta "
           "devolución proveedor catálogo stock reseña carrito oferta cupón campaña "
           "horario receta paciente consulta informe turno agenda médico urgencia "
           "reunión presupuesto contrato calendario plantilla copia servidor").split(),
    "zh": ("缓存 队列 重试 索引 延迟 发布 预算 供应商 发票 重构 会话 移动端 横幅 "
           "优惠券 物流 回调 迁移 租户 审计 配额 迭代 调色板 组件 网关 沙盒 账本 "
           "负载 限流 待办 热修复 告警 指标 集群 训练 数据集 模型 评估 笔记本").split(),
}
DECOY = {"vault-records": "0f 1 2e 3", "diary-notes": "1p 2f 4"}
# palaces 5 and 8 are heavy (most drawers in a hall) to press the budget
# palace: (lang, [(wing, newest date, {room: "days-ago+hall ..."})], target wings)
PALACES = [
    ("en", [("wing_shop", "2026-03-20", {"checkout": "0f 3 5e 9", "cart": "2 8p 12",
             "search": "4a 20", "legacy": "40f 50 60 70 80 90"})], ["wing_shop"]),
    ("es", [("wing_tienda", "2026-02-10", {"pagos": "1 2 3 4 5f", "envios": "0 6e 7",
             "inventario": "10p 11", "facturas": "15a",
             "archivo": "45f 60 61 62 63 64 65 66"})], ["wing_tienda"]),
    ("zh", [("wing_app", "2026-05-01", {"login": "0 1 2f 3 4 5", "push": "6 7e 8",
             "ui": "9p 10d", "old-api": "50f 55 56 57 58 59 60 61 62"})], ["wing_app"]),
    ("en", [("wing_blog", "2025-12-01", {"drafts": "0 2 4f", "seo": "1a",
             "archive-2023": "35f 36 37 38 100f 200"})], ["wing_blog"]),
    ("en", [("wing_infra", "2026-01-15", {"k8s": "0f 1e 2a 3p 4d 5f 6e",
             "dns": "7f 8e 9a 10p 11f", "ci": "12e 13a 14p 15e", "logs": "16 17p", "tls": "18f",
             "backup": "19a", "vpn": "20e", "terraform": "60f 61e 62a 63p 64d 65f 66e 67a 68p 69f"})], ["wing_infra"]),
    ("es", [("wing_clinica", "2026-06-30", {"citas": "0 1 2 3", "recetas": "4 5 6e",
             "agenda": "7p 8", "historial": "45f 70f 90f"})], ["wing_clinica"]),
    ("en", [("wing_game", "2026-08-08", {"physics": "0f 1f 2f 3", "audio": "4 5f 6",
             "levels": "7 8 9 10 11 12e", "netcode": "40f 41 42 43 44 45 46 47 48 49"})],
     ["wing_game"]),
    ("zh", [("wing_ml", "2026-04-04", {"data": "0e 1a 2p", "training": "3f 4e 5a 6f 7d",
             "eval": "8e 9f", "notebooks": "10a 11e 12p 13f 14a 15p 16e 17a",
             "baseline": "70f 71e 72a"})], ["wing_ml"]),
    ("en", [("wing_docs", "2025-09-09", {"guides": "0 1e", "api-ref": "2f 3 4", "faq": "5",
             "changelog": "6 7 8 9a", "wiki": "40f 41 42 43 44 45 46"})], ["wing_docs"]),
    ("en", [("wing_alpha", "2026-03-10", {"deploy": "0 1 2 3f", "auth": "4 5e 6",
             "metrics": "7p", "oldstack": "50f 51 52"}),
            ("wing_beta", "2026-05-20", {"deploy": "0f 1 2", "billing": "3 4 5 6 7",
             "reports": "8a 9", "archive-beta": "60f 61"})], ["wing_alpha", "wing_beta"]),
]


def cli(env, palace, *args):
    out = subprocess.run([MP, "--palace", palace, *args], env=env, cwd=ROOT,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{args[0]} failed: {out.stderr.strip()[-300:]}")
    return json.loads(out.stdout) if "--json" in args else out.stdout


def words(rng, lang, n):
    sep = "" if lang == "zh" else " "
    return sep.join(rng.sample(VOCAB[lang], n))


def est_tokens(text):
    cjk = len(re.findall(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]", text))
    return cjk + (len(text) - cjk) // 4


def build(pi, home, env):
    """File the palace; return drawers {tag: dict(wing, room, hall, date, id)}."""
    lang, wings, _ = PALACES[pi]
    wings = wings + ([] if pi == 9 else [(f"wing_decoy{pi + 1}", "2026-12-01", DECOY)])
    palace, rng, drawers = str(home / "palace"), random.Random(pi), {}
    for wi, (wing, newest, rooms) in enumerate(wings):
        end = dt.date.fromisoformat(newest)
        for room, spec in rooms.items():
            folder = home / "src" / wing / room
            folder.mkdir(parents=True)
            for n, tok in enumerate(spec.split()):
                days, hall = int(tok.rstrip("fedpa")), HALLS.get(tok[-1])
                tag = f"ref{pi + 1}w{wi}{room[:3]}{n}".replace("-", "")
                date = end - dt.timedelta(days=days)
                text = (f"Date: {date}\n\nUser: {tag} {words(rng, lang, 9)}?\n"
                        f"Assistant: {words(rng, lang, 10)}.\n")
                (folder / f"{tag}.txt").write_text(text, encoding="utf-8")
                drawers[tag] = dict(wing=wing, room=room, hall=hall, date=date)
            res = cli(env, palace, "ingest", str(folder), "--wing", wing, "--room", room, "--json")
            for src in res:
                tag = Path(src["source"]).stem
                assert len(src["drawer_ids"]) == 1, f"{tag}: {src['drawer_ids']} {src['errors']}"
                d = drawers[tag]
                d["id"] = src["drawer_ids"][0]
                got = [h for h, _ in src["places"][0]["halls"]] or [None]
                if got != [d["hall"]]:
                    cli(env, palace, "move", d["id"], *(["--hall", d["hall"]] if d["hall"]
                                                        else ["--no-hall"]), "--json")
    exp = home / "export.jsonl"   # sanity: the palace holds what we scripted
    cli(env, palace, "export", str(exp), "--json")
    rows = {r["id"]: r for r in map(json.loads, exp.read_text(encoding="utf-8").splitlines())}
    bad = [t for t, d in drawers.items() if d.get("id") not in rows
           or (rows[d["id"]]["hall"] or "").removeprefix("hall_") != (d["hall"] or "")
           or str(rows[d["id"]]["conversation_date"] or "")[:10] != str(d["date"])]
    return drawers, bad


def expected(drawers, wing):
    mine = [d for d in drawers.values() if d["wing"] == wing]
    newest = max(d["date"] for d in mine)
    start = newest - dt.timedelta(days=30)
    counts = {}
    for d in mine:
        if d["date"] >= start:
            counts[d["room"]] = counts.get(d["room"], 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    if len(ranked) > 3 and ranked[2][1] == ranked[3][1]:
        print(f"  WARNING {wing}: tie at rank 3 in own data")
    facts = sorted((d for d in mine if d["hall"] == "facts"), key=lambda d: d["date"])
    return dict(top=ranked[:3], fact=facts[-1]["id"] if facts else None)


def rooms_section(text):
    m = re.search(r"^#+ *Active rooms.*?$(.*?)(?=^#|\Z)", text, re.M | re.S | re.I)
    return (m.group(1), True) if m else (text, False)


def has_word(word, text):
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text) is not None


def check_wing(drawers, wing, env, palace, log):
    exp = expected(drawers, wing)
    runs = {b: cli(env, palace, "wake-up", "--wing", wing, "--tokens", str(b), "--json")
            for b in BUDGETS}
    default = cli(env, palace, "wake-up", "--wing", wing, "--json")
    text, ids = default["text"], default["drawer_ids"]
    section, found = rooms_section(text)
    missing = [r for r, _ in exp["top"] if not has_word(r, section)]
    a = not missing
    shown = dict(re.findall(r"^- *([\w-]+): *(\d+) drawer", section, re.M))
    badcount = [f"{r}: {shown.get(r)} vs {c}" for r, c in exp["top"] if shown.get(r) != str(c)]
    b = exp["fact"] in ids and exp["fact"] in text
    mine_rooms = {d["room"] for d in drawers.values() if d["wing"] == wing}
    leaks = []
    for tag, d in drawers.items():
        if d["wing"] == wing:
            continue
        if d["id"] in ids or d["id"] in text or tag in text:
            leaks.append(d["id"])
        if d["room"] not in mine_rooms and has_word(d["room"], text):
            leaks.append("room " + d["room"])
        shared = {x["room"] for x in drawers.values() if x["wing"] == d["wing"]} & mine_rooms
        if not shared and has_word(d["wing"], text):
            leaks.append("wing " + d["wing"])
    c = not leaks and default.get("wings") == [wing]
    d_ok = {}
    for bud, r in runs.items():
        d_ok[bud] = r["tokens"] <= bud and est_tokens(r["text"]) <= bud
        if abs(est_tokens(r["text"]) - r["tokens"]) > 2:
            log.append(f"    note: budget {bud}: reported {r['tokens']} vs own estimate {est_tokens(r['text'])}")
    small = runs[300]
    log.append(f"  {wing}: a {'ok' if a else 'FAIL missing ' + str(missing)}"
               f" (expected {exp['top']}{'' if found else ', no active-rooms section found'})"
               f" | b {'ok' if b else 'FAIL ' + str(exp['fact'])} | c {'ok' if c else 'FAIL ' + str(sorted(set(leaks)))[:200]}"
               f" | d " + " ".join(f"{k}:{runs[k]['tokens']}{'' if v else '!'}" for k, v in d_ok.items()))
    if badcount:
        log.append(f"    note: room counts shown differ: {badcount}")
    s300, _ = rooms_section(small["text"])
    log.append(f"    at 300: top rooms {sum(has_word(r, s300) for r, _ in exp['top'])}/{len(exp['top'])},"
               f" newest fact {'in' if exp['fact'] in small['drawer_ids'] else 'OUT'};"
               f" identity {'in' if 'Identity of palace' in text else 'OUT'}")
    return a, b, c, d_ok


def run_palace(pi, tmp):
    home = Path(tmp) / f"p{pi + 1}"
    home.mkdir()
    (home / "identity.md").write_text(
        f"Identity of palace {pi + 1}: Kai, a developer (开发者) who works on these projects.\n")
    env = dict(os.environ, MEMPALACE_HOME=str(home), MEMPALACE_EMBEDDER="hash")
    log = [f"palace {pi + 1} ({PALACES[pi][0]}, wings {[w[0] for w in PALACES[pi][1]]})"]
    try:
        drawers, bad = build(pi, home, env)
        if bad:
            log.append(f"  SETUP WARNING: {len(bad)} drawers differ from the script: {bad[:5]}")
        res = [check_wing(drawers, w, env, str(home / "palace"), log) for w in PALACES[pi][2]]
    except Exception as exc:  # a benchmark reports, it does not crash
        log.append(f"  ERROR: {exc}")
        return log, (False, False, False, {b: False for b in BUDGETS})
    return log, (all(r[0] for r in res), all(r[1] for r in res), all(r[2] for r in res),
                 {b: all(r[3][b] for r in res) for b in BUDGETS})


def main():
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: run_palace(i, tmp), range(len(PALACES))))
    for log, _ in results:
        print("\n".join(log))
    a, b, c = (sum(r[k] for _, r in results) for k in range(3))
    d = sum(v for _, r in results for v in r[3].values())
    n = len(results)
    print(f"wake-up blind check: a {a}/{n}, b {b}/{n}, c {c}/{n}, d {d}/{n * len(BUDGETS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
