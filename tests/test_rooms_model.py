"""Room choice through the real ingest pipeline: one concept in differently worded chats of three wings
shares a room, near misses that share a word stay apart, a chat that changes topic gets two rooms,
names, dates, numbers and generic words never name a room, the same files give the same rooms, and
re-rooming leaves an unchanged palace and a person's choices alone.

Tests marked `model` run on the real MiniLM embedder (one module-scoped palace holds every topic
conversation); the others use the conftest's fake `hash` embedder.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from _cli import describe, ok
from mempalace import Palace
from mempalace.cli import main
from mempalace.config import load_settings
from mempalace.ingest import ingest, ingest_paths
from mempalace.ingest.reroom import reroom
from mempalace.rooms.naming import GENERAL

model = pytest.mark.model

# -- one auth migration (Auth0 -> Clerk), three wings, three vocabularies ----------------------------------------

AUTH_ENGINEER = """\
User: OAuth refresh tokens broke after the Clerk cutover last night. Anyone who signed in before the switch gets bounced back to the sign-in page after about an hour, which lines up with the access token lifetime. New sign-ins are fine.
Assistant: That pattern usually means the refresh call still goes to the old tenant. A refresh token issued by Auth0 can't be redeemed at Clerk's token endpoint, because Clerk has never seen it. Check which issuer your SDK talks to when it refreshes, and where the stored refresh token came from.
User: Found it: the mobile app still had the Auth0 domain hardcoded in the refresh request. Web was already on the Clerk SDK. Next problem from the migration: the callback URLs. After sign-in Clerk redirects to our callback route and the app shows "redirect_uri mismatch".
Assistant: Clerk matches redirect URLs exactly, scheme and trailing slash included. Add the production and staging callback URLs to the allowed redirect list in the Clerk dashboard, and the custom scheme for the mobile deep link too. Auth0 allowed wildcard subdomains, which is probably why the same setup worked before the migration.
User: Redirect list fixed. Last one: our API reads the customer's organisation from a custom JWT claim. With Auth0 we had an Action that put org_id and the user's roles into the access token. The Clerk tokens don't carry those claims, so every API call returns 403.
Assistant: In Clerk you add custom claims with a JWT template: create a template, map org_id to the active organisation's id and roles to the member's role, then have the frontend ask for a token with that template. On the API side, point the middleware at Clerk's JWKS endpoint and expected issuer instead of the Auth0 ones. Accept both issuers for a day or two, so sessions started before the cutover don't all fail at once.
User: Accepting both issuers is a good idea. I'll ship the middleware change behind a flag and force a fresh sign-in for mobile users whose refresh token still comes from Auth0.
"""

AUTH_PROJECT = """\
Priya: Kicking off the authentication migration plan in this thread so everything is in one place. Goal: move customer login from Auth0 to Clerk by the end of Q3, without making anyone reset their password.
Jordan: Owners so far: I have the backend side (session validation and the user sync job), Mei has the web and mobile sign-in screens, and Tomas owns exporting users from Auth0 and importing them into Clerk.
Tomas: On the import: Auth0 only exports password hashes through a support ticket. Clerk can import bcrypt hashes, so people keep their passwords. I'll open the ticket today; they quoted five to seven business days.
Priya: Tentative dates: user export by Aug 8, import into a Clerk staging instance by Aug 15, internal dogfooding the week of Aug 18, then the production rollout starting Aug 25.
Mei: Rollout proposal: send 5% of new sign-ins to Clerk first, watch the sign-in success rate and support tickets for two days, then 25%, 50% and 100%. Existing sessions stay on Auth0 until they expire, so nobody gets logged out in the middle of their work.
Jordan: We need a way back at every step. If sign-in success drops by more than two points we flip the flag back to Auth0, which means keeping the Auth0 tenant and the two-way user sync running until two weeks after we reach 100%.
Priya: Agreed. Open risks for the migration plan: enterprise customers on SAML single sign-on need their connections recreated in Clerk, and each of them needs an email with their switch date. Tomas, can you pull the list of SAML tenants?
Tomas: Will do. Fourteen enterprise tenants use SAML, three of them on custom domains.
Mei: I'll draft the customer FAQ and the in-app banner for the switch.
Priya: Thanks all. I'll put owners and dates in the tracker, and we review the migration every Tuesday until the rollout is finished.
"""

AUTH_MANAGER = """\
User: I need to decide this week whether to approve Clerk over Auth0. The engineering team wants to switch our login provider. Can you help me think through the cost and the risk?
Assistant: Sure. Start with the cost per monthly active user, since both vendors price on MAU. What does Auth0 charge you today, and what did Clerk quote?
User: We're at about 42,000 MAU. The Auth0 renewal came in at $2,300 a month on their B2B plan, and it jumps again past 50,000. Clerk quoted $0.02 per MAU after the first 10,000, so roughly $640 a month, plus $100 for the enterprise SSO add-on.
Assistant: That's about a 68% cut in the identity bill, roughly $18,000 a year. Check two things in the quote: whether SAML connections are priced per connection (with fourteen enterprise customers on SSO that adds up), and whether the price is locked for more than a year. Also ask how they count an active user; some vendors count anyone whose token refreshes.
User: Per-connection pricing was the catch, good flag. Sales says they can cap it. What about the risk? I can't afford customers being unable to log in.
Assistant: The main risks are users locked out if password hashes don't import cleanly, enterprise SSO customers breaking during their switch, and the team's time: this will take a few engineer-weeks away from roadmap work. A staged rollout with a flag to switch back keeps the outage risk small. Vendor risk is real too: Clerk is a younger company than Auth0, so ask for their uptime history and their SOC 2 report.
User: The team says they can switch back within minutes. So if the SOC 2 report checks out and SSO pricing is capped, I approve?
Assistant: That's a reasonable bar. Put the conditions in writing: capped SSO pricing, the SOC 2 report reviewed by security, a tested way back to Auth0, and a date when the Auth0 contract ends so you don't pay for both for long.
User: Perfect. I'll approve Clerk on those conditions and tell finance the Auth0 contract ends once the switch is done.
"""

# -- near misses: each pair shares a word, not a concept --------------------------------------------------------------

POSTGRES_UPGRADE = """\
User: We're planning the Postgres major version upgrade from 14 to 16 on the main cluster. Should the migration use pg_upgrade with --link, or a dump and restore?
Assistant: For a database of a few terabytes, pg_upgrade in link mode is the usual choice: it rebuilds the system catalogs and hard-links the data files, so it takes minutes instead of hours. A dump and restore needs a downtime window that grows with the data. The catch with --link is that once the new cluster has started you can't go back to the old one, so take a snapshot first.
User: Extensions worry me. We use PostGIS, pg_stat_statements, pg_partman and pgvector.
Assistant: Every extension has to be installed for 16 on the new binaries before you run pg_upgrade --check, at versions that exist for both majors. PostGIS is the tricky one: first upgrade PostGIS on 14 to a release that also ships for 16, then do the major upgrade, then run ALTER EXTENSION ... UPDATE for each extension. Run the check against a restored copy of production so missing libraries show up before the real night.
User: And the replicas? We have two streaming replicas and a logical replication slot feeding the analytics warehouse.
Assistant: Streaming replicas can't follow a major version change. Either rebuild them from the new primary with pg_basebackup, or upgrade them in place with the rsync procedure from the pg_upgrade documentation while everything is stopped. Logical replication slots are not carried over from 14, so recreate the slot after the migration and resync the warehouse tables.
User: How long a downtime window should I ask for?
Assistant: In link mode the upgrade itself usually takes under fifteen minutes. Add time for stopping the application, running vacuumdb --analyze-in-stages so the planner has statistics again, rebuilding the replicas and smoke tests. A two-hour window on a Sunday night gives you a comfortable margin.
User: So the migration runbook is: snapshot, check, stop the app, pg_upgrade --link, start 16, analyze, rebuild the replicas, recreate the slot. I'll book the window.
Assistant: That's the right order. Rehearse the whole database migration on staging once and time every step, so the window you ask for comes from a real run.
"""

GPU_PRICING = """\
User: I'm trying to make sense of GPU cloud pricing for our fine-tuning runs. What do H100s cost per hour right now?
Assistant: It depends a lot on the provider. The big clouds list an 8-GPU H100 instance at roughly $88 to $98 an hour on demand, which is about $11 to $12 per GPU-hour. Specialised GPU clouds such as Lambda, CoreWeave and RunPod charge around $2 to $3.50 per H100 GPU-hour on demand, and marketplaces like Vast can go lower for single cards with less reliable hosts.
User: That's a huge spread. How do spot and reserved instances change it?
Assistant: Spot or preemptible H100 capacity is often 50 to 70% cheaper than on demand, but it can be reclaimed with a few minutes' notice, so your training code has to checkpoint often and resume cleanly. Reserved capacity means committing to months or a year of GPUs; providers then drop the hourly rate, often to around $2 per H100-hour, but you pay whether the cards are busy or idle.
User: We use about 300 GPU-hours a month, in bursts around each model release.
Assistant: At 300 GPU-hours a month a reservation rarely pays off: even at a good reserved rate you'd pay for 720 hours per card while using less than half of that. On-demand H100s from a specialised provider at about $2.50 an hour come to roughly $750 a month, and moving the jobs that checkpoint well to spot could bring that near $400.
User: Anything else that shows up on the bill besides the hourly rate?
Assistant: Storage for datasets and checkpoints, network egress when you pull weights back out, and idle time while you debug on an expensive node. Availability matters as much as price: H100s on demand can be sold out in some regions, so keep accounts with two providers and a container image that runs on both.
User: Makes sense. I'll price the next run on two providers and try spot for the evaluation jobs.
"""

SUBSCRIPTION_PRICING = """\
Leah: Draft for the new pricing page, feedback welcome. Three tiers: Free for up to 3 seats, Team at $12 per seat per month, and Business at $24 per seat per month with SSO, audit logs and priority support.
Omar: I like per-seat pricing for Team, it's what buyers expect. But Business at double the Team price feels steep when the only real difference is SSO. Could we move audit logs down to Team?
Leah: Then nothing pushes a growing company to Business. What if Business also gets advanced permissions and a 99.9% uptime SLA?
Ines: Data from the last quarter: 61% of paying workspaces are on annual billing. Right now the annual discount is 15%. Competitors show "2 months free", which is about 17%. I'd round ours to 20% and show the annual price by default.
Omar: A 20% annual discount is fine if the monthly price is the anchor. Show "$12 per seat, billed monthly" next to "$9.60 billed annually" so the saving is obvious.
Leah: What happens to existing customers on the old $10 seat price?
Ines: Grandfather them for 12 months, then move them to the new Team price with 60 days' notice. Churn on the last price change was under 2% when we gave that much notice.
Omar: And the Free tier: 3 seats and 90 days of history? Otherwise teams stay on Free forever.
Leah: Agreed, 3 seats and 90 days of history. I'll update the draft: Free, Team $12 per seat, Business $24 per seat with SSO, audit logs, advanced permissions and the SLA, 20% off for annual plans, and a 12-month grandfathering period.
Ines: I'll model the revenue impact of the new tiers before Friday so we can approve the pricing in the next review.
"""

MARATHON_TRAINING = """\
User: I signed up for my first marathon in October. I run about 30 km a week now. How should I structure the training?
Assistant: With a good base, an 18-week plan works well. Build weekly mileage gradually, by no more than about 10% a week, up to a peak of roughly 60 to 70 km. Each week has three key sessions: a long run, a tempo or threshold run, and an easy run with strides. Everything else is easy running at a pace where you can hold a conversation.
User: How long should the long runs get?
Assistant: Add about 2 km to the long run most weeks, with a lighter week every third or fourth week, and top out at 32 to 35 km three to four weeks before race day. Run them slowly, 45 to 90 seconds per kilometre slower than your goal marathon pace. In the last few long runs, practise the final 8 km at marathon pace and rehearse your race-day fuelling: a gel every 30 to 40 minutes and water at each stop.
User: And the tempo runs? I tend to go out way too fast.
Assistant: Tempo pace is comfortably hard, roughly the pace you could race for an hour. Start with 20 minutes at tempo inside a warm-up and cool-down, and build to 40 minutes, or 3 x 12 minutes with short jogs between. If you can't speak a few words at a time, you're going too fast.
User: My knees feel fine so far, but I'm nervous about the jump in mileage.
Assistant: Keep the easy days truly easy, do two short strength sessions a week (squats, lunges, calf raises), and replace your shoes around 600 to 800 km. Those do more for injury-free running than any single workout.
User: What about the taper?
Assistant: Taper over the last three weeks: cut weekly mileage to about 80%, then 60%, then 40% in race week, but keep a little marathon-pace running so your legs stay sharp. Sleep well, increase carbohydrates for two days before the race, and don't try new shoes or new gels on race day.
"""

KNEE_PHYSIO = """\
User: My physio says I have patellofemoral pain syndrome in my left knee. It aches around the kneecap when I go down stairs or after I've been sitting for a while. What does that actually mean?
Assistant: Patellofemoral pain is irritation where the kneecap glides over the thigh bone. It's common in runners and usually comes from loading the joint more than it's ready for, often together with weak hip and thigh muscles that let the knee drift inward. The good news is that it responds well to rehab; surgery is almost never needed.
User: She gave me exercises: clamshells, side-lying leg raises, wall sits and slow step-downs off a small box. They feel too easy to fix anything.
Assistant: They're meant to start easy. Clamshells and leg raises strengthen the hip abductors, which keep the knee tracking over the foot; wall sits and step-downs load the quadriceps in a range the kneecap tolerates. Do them daily, three sets of 10 to 15, and make them harder over the weeks with a band, a deeper angle or a weighted vest. Pain during an exercise should stay at 3 out of 10 or less and settle by the next morning.
User: Should I ice it? And can I keep running?
Assistant: Ice can ease the ache after activity, but it doesn't heal anything; the strengthening does. Most physios let you keep running if it stays within that pain rule: run on flat ground, shorten your stride a little, skip hills and stairs for now, and cut the distance back until a run doesn't flare the knee the next day.
User: How long does rehab usually take?
Assistant: Most people feel a clear difference in six to eight weeks of consistent exercises, and full recovery often takes three months. Your physio will usually add single-leg squats and hopping before you go back to long or fast runs. If the knee swells, locks or gives way, go back to her sooner, since that points to something other than patellofemoral pain.
User: Okay. I'll do the exercises every day, keep a pain diary and book a follow-up appointment in three weeks.
"""

# -- one chat that changes topic halfway ------------------------------------------------------------------------------

KITCHEN_THEN_TAXES = """\
User: We're finally redoing the kitchen. The cabinets are from the 80s, the doors are peeling and two drawers don't close. Is it worth refacing them or should we replace the whole set?
Assistant: If the cabinet boxes are solid plywood and the layout works for you, refacing (new doors, drawer fronts and veneer on the frames) usually costs 40 to 50% of new cabinets and takes days instead of weeks. If the boxes are particleboard that has swollen near the sink or the dishwasher, or if you want to move the sink or add an island, replacing them is the better investment.
User: The boxes under the sink are swollen, and we'd like a small island. So new cabinets. What about countertops? We're torn between quartz and butcher block.
Assistant: Quartz is non-porous, needs no sealing and resists stains and scratches, which makes it the low-maintenance choice around the sink and the stove. Butcher block is warmer and cheaper, but it has to be oiled every few months and it marks from water and knives. A common compromise is quartz on the perimeter and a butcher block top on the island.
User: We got three contractor quotes: $38,000, $46,500 and $61,000 for basically the same scope. How do I compare them?
Assistant: Put them side by side line by line: demolition, cabinets, countertops, plumbing, electrical, drywall, flooring, permits and cleanup. Big gaps usually come from the cabinet line (stock versus semi-custom), from whether permits and disposal are included, or from one contractor pricing in allowances that are too low. Ask each contractor for references from recent kitchen jobs, proof of licence and insurance, and a payment schedule tied to milestones rather than a large deposit.
User: The $46,500 one includes permits and semi-custom cabinets, the cheap one uses allowances for both. I think we'll go with the middle quote and start in March.
Assistant: That sounds sensible. Make sure the contract lists the cabinet line, the countertop material and edge profile, and the start and end dates, and keep a 10% contingency for surprises behind the old cabinets.
User: Unrelated, but while I have you: I still haven't filed my taxes and the deadline is April 15. My W-2 from my employer arrived last week. Where do I start?
Assistant: Start by collecting every form: your W-2, 1099s for any freelance income or bank interest, the 1098 from your mortgage lender if you have one, and receipts for anything you might deduct. Then decide between the standard deduction and itemising: for most single filers the standard deduction is higher unless mortgage interest, state and local taxes and charitable gifts add up to more.
User: I did some freelance design work on the side, about $9,000. Does that change things?
Assistant: Yes. Freelance income goes on Schedule C, and you owe self-employment tax on the profit, about 15.3%, on top of income tax. The upside is that you can deduct business expenses: software subscriptions, a share of your phone and internet, equipment, and a home office if you have a space used only for the work. Keep records for each deduction in case the IRS asks.
User: Should I have been paying estimated taxes on that?
Assistant: Probably, if you'll owe more than $1,000 at filing. The quarterly estimated tax deadlines are in April, June, September and January. If you missed them this year you may owe a small underpayment penalty, which Form 2210 calculates. For next year, you can raise the withholding on your W-2 job instead of sending quarterly payments.
User: Good to know. If I can't get everything together by the deadline, can I file an extension?
Assistant: Yes, Form 4868 gives you until October 15 to file, but not to pay: estimate what you owe and pay it by April 15 to avoid interest and late-payment penalties. Filing early also gets your refund sooner if your withholding covered more than you owe.
"""

TOPIC_FILES = [  # (file name, wing, text), ingested in this order: near misses interleaved with the auth chats
    ("oauth-debugging.txt", "wing_engineer", AUTH_ENGINEER),
    ("postgres-upgrade.txt", "wing_dba", POSTGRES_UPGRADE),
    ("auth-thread.txt", "wing_project", AUTH_PROJECT),
    ("gpu-budget.txt", "wing_ml", GPU_PRICING),
    ("vendor-decision.txt", "wing_manager", AUTH_MANAGER),
    ("pricing-page.txt", "wing_growth", SUBSCRIPTION_PRICING),
    ("training-plan.txt", "wing_running", MARATHON_TRAINING),
    ("knee.txt", "wing_health", KNEE_PHYSIO),
    ("house.txt", "wing_home", KITCHEN_THEN_TAXES),
]
AUTH_WINGS = ("wing_engineer", "wing_project", "wing_manager")
NEAR_MISSES = [  # (wing of one concept, wing of the other)
    pytest.param("wing_dba", "wing_engineer", id="postgres-upgrade-vs-auth-migration-engineer"),
    pytest.param("wing_dba", "wing_project", id="postgres-upgrade-vs-auth-migration-plan"),
    pytest.param("wing_ml", "wing_growth", id="gpu-pricing-vs-subscription-pricing"),
    pytest.param("wing_running", "wing_health", id="marathon-training-vs-knee-physio"),
    # Not one of the pairs above, but the same kind of near miss: the product's price list against the manager's
    # vendor decision, which also weighs prices (Clerk's cost per MAU, per-connection SSO pricing).
    pytest.param("wing_growth", "wing_manager", id="subscription-pricing-vs-auth-vendor-cost", marks=pytest.mark.xfail(
        strict=True, reason="filed one wing at a time, the pricing-page thread (tiers, per-seat, annual discount) "
        "joins the auth migration's room `refresh-token` (likeness 0.234: meaning 0.25, words 0.21, needed 0.22) "
        "instead of opening one of its own; re-rooming, which sees every wing, files it apart")),
]


def write_topic_files(folder: Path) -> list[tuple[Path, str]]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, wing, text in TOPIC_FILES:
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append((path, wing))
    return written


def ingest_topics(palace: Palace, files: list[tuple[Path, str]]) -> None:
    for path, wing in files:
        report = ingest(palace, path, wing=wing)
        assert report.ok and not report.errors and report.format == "plain_text", (path.name, report.errors)


def drawers(palace: Palace, wing: str | None = None) -> list:
    """Every drawer (of a wing), in conversation order."""
    total, page = palace.browse(wing=wing, limit=1000)
    assert total == len(page)
    return sorted(page, key=lambda d: (d.parent_id or "", d.chunk_index))


def rooms_by_drawer(palace: Palace) -> dict[str, tuple[str, str]]:
    return {d.id: (d.wing, d.room) for d in drawers(palace)}


def majority_room(palace: Palace, wing: str) -> tuple[str, float]:
    """The room holding most of a wing's drawers, and the share it holds."""
    counts = Counter(d.room for d in drawers(palace, wing))
    assert counts, f"no drawers in {wing}"
    room, n = min(counts.items(), key=lambda item: (-item[1], item[0]))
    return room, n / sum(counts.values())


def layout(palace: Palace) -> dict[str, list[str]]:
    """{wing: the room of each of its drawers in conversation order}, for failure messages."""
    out: dict[str, list[str]] = {}
    for d in drawers(palace):
        out.setdefault(d.wing, []).append(d.room)
    return out


@pytest.fixture(scope="module")
def topic_files(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, str]]:
    return write_topic_files(tmp_path_factory.mktemp("topic-files"))


def open_model_palace(root: Path) -> Palace:
    return Palace.open(root / "palace", settings=load_settings(root / "home", embedder="minilm-int8"))


@pytest.fixture(scope="module")
def topics(tmp_path_factory: pytest.TempPathFactory, topic_files) -> Iterator[Palace]:
    """One real-model palace holding every topic conversation of this module, ingested in order."""
    with open_model_palace(tmp_path_factory.mktemp("topics")) as palace:
        assert palace.settings.embedder == "minilm-int8"
        ingest_topics(palace, topic_files)
        yield palace


@pytest.fixture
def topics_copy(tmp_path: Path, topic_files) -> Iterator[Palace]:
    """A palace of its own holding the same conversations, for tests that change rooms."""
    with open_model_palace(tmp_path) as palace:
        ingest_topics(palace, topic_files)
        yield palace


# -- 1. one concept, three wings, three vocabularies: one room --------------------------------------------------------


@model
def test_the_conversations_are_the_size_the_rules_speak_of(topics) -> None:
    for _, _, text in TOPIC_FILES:
        if text is not KITCHEN_THEN_TAXES:
            assert 1_500 <= len(text) <= 2_600, (text[:40], len(text))
    assert 3_800 <= len(KITCHEN_THEN_TAXES) <= 5_000
    for wing in (w for _, w, _ in TOPIC_FILES):
        found = drawers(topics, wing)
        assert len(found) >= 2 and all(len(d.content) <= 1_000 for d in found), (wing, [len(d.content) for d in found])


@model
def test_one_auth_migration_in_three_wings_shares_a_room(topics) -> None:
    majority = {wing: majority_room(topics, wing) for wing in AUTH_WINGS}
    rooms = {room for room, _ in majority.values()}
    assert len(rooms) == 1 and GENERAL not in rooms, layout(topics)
    assert all(share > 0.5 for _, share in majority.values()), (majority, layout(topics))


# -- 2. near misses: a shared word is not a shared concept -------------------------------------------------------------


@model
@pytest.mark.parametrize("one, other", NEAR_MISSES)
def test_near_misses_get_different_rooms(topics, one: str, other: str) -> None:
    assert majority_room(topics, one)[0] != majority_room(topics, other)[0], layout(topics)


# -- 3. a chat that changes topic gets two rooms ----------------------------------------------------------------------


@model
def test_a_chat_that_moves_from_the_kitchen_to_the_taxes_gets_two_rooms(topics) -> None:
    found = drawers(topics, "wing_home")
    assert len({d.parent_id for d in found}) == 1 and [d.chunk_index for d in found] == list(range(len(found)))
    turn = next(i for i, d in enumerate(found) if "Unrelated, but" in d.content)
    kitchen = found[:turn]
    taxes = found[turn + 1:]
    assert kitchen and taxes, [d.content[:60] for d in found]
    kitchen_rooms = {d.room for d in kitchen}
    tax_rooms = {d.room for d in taxes}
    assert not kitchen_rooms & tax_rooms, [(d.chunk_index, d.room, d.content[:50]) for d in found]


# -- 6. the same files give the same rooms -----------------------------------------------------------------------------


@model
def test_the_same_files_in_a_fresh_palace_get_the_same_rooms(topics, topic_files,
                                                             tmp_path_factory: pytest.TempPathFactory) -> None:
    with open_model_palace(tmp_path_factory.mktemp("topics-again")) as again:
        ingest_topics(again, topic_files)
        first, second = rooms_by_drawer(topics), rooms_by_drawer(again)
    assert len(first) == sum(len(drawers(topics, w)) for _, w, _ in TOPIC_FILES)
    assert first == second, {k: (first.get(k), second.get(k)) for k in first.keys() | second.keys()
                             if first.get(k) != second.get(k)}


# -- 7. re-rooming an unchanged palace moves nothing -----------------------------------------------------------------


@model
def test_a_dry_run_reroom_changes_nothing(topics) -> None:
    before, count = rooms_by_drawer(topics), topics.count()
    report = reroom(topics, dry_run=True)
    assert report.dry_run and report.considered == count and report.kept == 0
    assert rooms_by_drawer(topics) == before and topics.count() == count


@model
def test_re_rooming_settles_a_palace_in_one_pass(topics_copy) -> None:
    """Re-rooming knows every wing at once, which ingest, filing one wing at a time, did not: it may
    file a part better (here the pricing page leaves the auth room). Once applied, it has nothing
    left to move."""
    first = reroom(topics_copy)
    assert not first.dry_run
    again = reroom(topics_copy, dry_run=True)
    assert again.moves == (), again.summary()


# -- 4. people's names never name a room ------------------------------------------------------------------------------

RELEASE_CHANNEL = """\
deploybot: Anthony Bilinski pushed 3 commits to search-reindex
Nadia: Carmen said the search reindex job timed out again overnight. Carmen thinks the batch size is too large for the new cluster.
Oskar: Carmen is right, the reindex job loads 50,000 documents per batch. Will reviewed the patch that halves it yesterday.
deploybot: Anthony Bilinski pushed 3 commits to search-reindex
Nadia: Grace promised the date for the search reindex rollout: Thursday. Grace wants the reindex job to finish before the morning traffic peak.
Oskar: Then the reindex has to be under four hours. Anthony measured six hours with the old batch size.
deploybot: Anthony Bilinski pushed 3 commits to search-reindex
Nadia: Anthony, can you rerun the reindex job on staging with the smaller batches? Carmen wants numbers before Grace confirms.
Oskar: Will reviewed the retry logic too. If a batch fails, the reindex job retries it three times, then parks it.
deploybot: Anthony Bilinski pushed 3 commits to search-reindex
Nadia: Staging reindex took three hours forty minutes with the smaller batches. Carmen and Grace are happy with that.
Oskar: Great. Grace promised the date, so the search reindex goes out Thursday night. Will reviewed it and Anthony merged it.
"""

HEALTH_CHAT = """\
Ruth: My blood pressure readings have been high again this month, around 150 over 95 in the mornings.
Assistant: That is above the usual target. Are you measuring at the same time each day, seated, after five minutes of rest, with the cuff at heart level?
Ruth: Yes. Carmen said her readings dropped when she cut down on salt. My cardiologist wants me to ask Dr. Patel about adjusting the dose of my blood pressure medication.
Assistant: It's a good idea to ask Dr. Patel. Bring a week of readings, morning and evening, and the list of medications you take. Dr. Patel may change the dose, add a second medication, or check your kidney function first.
Ruth: Carmen also said that walking every day helped her blood pressure. Should I ask Dr. Patel about exercise?
Assistant: Yes: regular brisk walking, less salt and less alcohol all lower blood pressure. Ask Dr. Patel how quickly to build up, and keep logging your blood pressure readings so he can see the trend.
Ruth: I'll book the appointment with Dr. Patel for next week and bring the readings.
"""

NAMES = {"nadia", "oskar", "deploybot", "carmen", "anthony", "bilinski", "grace", "will", "ruth", "patel"}


def test_peoples_names_never_name_a_room(palace, tmp_path: Path) -> None:
    (tmp_path / "release-channel.txt").write_text(RELEASE_CHANNEL, encoding="utf-8")
    (tmp_path / "health-chat.txt").write_text(HEALTH_CHAT, encoding="utf-8")
    reports = ingest_paths(palace, [tmp_path / "release-channel.txt", tmp_path / "health-chat.txt"], wing="wing_x")
    assert all(r.ok and not r.errors for r in reports), [r.errors for r in reports]
    rooms = set(palace.list_rooms("wing_x"))
    assert rooms - {GENERAL}, rooms  # the chats have topics: the names had something to lose to
    named = {room: set(room.split("-")) & NAMES for room in rooms}
    assert not any(named.values()), named


# -- 5. generic words, months and number words never name a room ------------------------------------------------------

GENERIC_CHAT = """\
User: Quick question about the update. I have a list of problems since the January update, and a plan to install it again in Sep.
Assistant: Sure, what is the problem with the update? Send me the list and I'll help with the plan. Which install did you use in January?
User: Three problems. One: the install from the January update broke the greenhouse humidity sensor. Two: the humidity sensor list shows three sensors, not one. Three: the update plan says to install in Sep, but the greenhouse humidity is too high now.
Assistant: Good question. For the humidity sensor problem, the plan is: remove the three sensors from the list, install the update again, then re-pair the greenhouse humidity sensor. The January install often leaves old sensors in the list.
User: Another question: should the plan wait for the Sep update, or install now? The greenhouse humidity problem is killing the seedlings.
Assistant: Install now. The Sep update is a plan, not a promise. With three sensors on the list, the update gets confused; clear the list, install, and the greenhouse humidity readings should be right again.
User: Update: I did the install, cleared the list, and the greenhouse humidity sensor shows one reading again. The problem is gone. Thanks for the plan.
Assistant: Great. If the problem comes back after the next update, send me the list again and we'll plan the install together.
"""

NEVER_ROOM_WORDS = {"update", "updates", "list", "install", "question", "questions", "problem", "problems", "plan",
                    "january", "jan", "sep", "sept", "september", "three", "one", "two"}


def test_generic_words_months_and_number_words_never_name_a_room(palace, tmp_path: Path) -> None:
    (tmp_path / "greenhouse.txt").write_text(GENERIC_CHAT, encoding="utf-8")
    report = ingest(palace, tmp_path / "greenhouse.txt", wing="wing_x")
    assert report.ok and not report.errors, report.errors
    rooms = set(palace.list_rooms("wing_x"))
    assert rooms - {GENERAL}, rooms
    generic = {room: set(room.split("-")) & NEVER_ROOM_WORDS for room in rooms}
    assert not any(generic.values()), generic


# -- 7. who chose a room: ingest, a person, and re-rooming -------------------------------------------------------------


def room_by(palace: Palace, drawer_id: str) -> str | None:
    return palace.get_drawer(drawer_id).room_by


@model
def test_reroom_never_moves_a_drawer_a_person_moved(model_palace: Palace, tmp_path: Path) -> None:
    for name, wing, text in TOPIC_FILES[:3]:
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert ingest(model_palace, tmp_path / name, wing=wing).ok
    filed = drawers(model_palace)
    assert filed and all(room_by(model_palace, d.id) == "ingest" for d in filed)
    moved = next(d for d in filed if d.wing == "wing_dba")
    assert model_palace.move_drawers([moved.id], room="my-room") == 1
    assert room_by(model_palace, moved.id) == "person"
    count = model_palace.count()

    report = reroom(model_palace)
    assert not report.dry_run and report.kept == 1 and report.considered == count - 1
    assert moved.id not in {m.drawer_id for m in report.moves}, report.moves
    after = model_palace.get_drawer(moved.id)
    assert (after.wing, after.room, after.room_by) == ("wing_dba", "my-room", "person")
    assert model_palace.count() == count
    # what re-rooming filed is still ingest's choice; a second pass finds nothing to move
    assert all(room_by(model_palace, d.id) == "ingest" for d in drawers(model_palace) if d.id != moved.id)
    assert reroom(model_palace, dry_run=True).moves == ()


def test_a_forced_room_is_a_persons_choice(palace, tmp_path: Path) -> None:
    (tmp_path / "knee.txt").write_text(KNEE_PHYSIO, encoding="utf-8")
    (tmp_path / "house.txt").write_text(KITCHEN_THEN_TAXES, encoding="utf-8")
    assert ingest(palace, tmp_path / "knee.txt", wing="wing_x", room="Knee Rehab").ok
    assert ingest(palace, tmp_path / "house.txt", wing="wing_x").ok
    filed = drawers(palace, "wing_x")
    forced = [d for d in filed if d.source_file.endswith("knee.txt")]
    chosen = [d for d in filed if d.source_file.endswith("house.txt")]
    assert forced and chosen and len(forced) + len(chosen) == len(filed)
    assert {d.room for d in forced} == {"knee-rehab"}
    assert {room_by(palace, d.id) for d in forced} == {"person"}
    assert {room_by(palace, d.id) for d in chosen} == {"ingest"}
    report = reroom(palace)
    assert report.kept == len(forced) and report.considered == len(chosen)
    assert not {m.drawer_id for m in report.moves} & {d.id for d in forced}
    after = [palace.get_drawer(d.id) for d in forced]
    assert {(d.room, d.room_by) for d in after} == {("knee-rehab", "person")}


# -- 7. the CLI: rooms --rebuild --dry-run ------------------------------------------------------------------------------


def test_cli_dry_run_rebuild_of_an_unchanged_palace_would_move_nothing(tmp_path: Path) -> None:
    palace_dir = tmp_path / "cli-palace"
    runner = CliRunner()

    def cli(*args: str):
        return runner.invoke(main, ["--palace", str(palace_dir), *args])

    for name, wing, text in TOPIC_FILES[:4]:
        (tmp_path / name).write_text(text, encoding="utf-8")
        ok(cli("ingest", str(tmp_path / name), "--wing", wing))
    before = ok(cli("rooms")).stdout
    with Palace.open(palace_dir) as opened:
        count = opened.count()
    assert count > 0

    result = ok(cli("rooms", "--rebuild", "--dry-run"))
    assert f"Would move 0 of {count} " in result.stdout, describe(result)
    assert ok(cli("rooms")).stdout == before

    misuse = cli("rooms", "--dry-run")
    assert misuse.exit_code == 2, describe(misuse)
    assert "--dry-run goes with --rebuild" in misuse.output, describe(misuse)
    assert ok(cli("rooms")).stdout == before
