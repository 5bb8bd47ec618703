#!/usr/bin/env python3
"""Build the second retrieval evaluation set, "Fieldline": generated, larger, vaguer.

Fieldline is an imaginary agritech team that builds soil probes, weather masts, valve
controllers and LoRaWAN gateways (Zephyr firmware, a Go ingest service, TimescaleDB, a
Flutter field app). Nothing here shares a domain with Harbor (``build_store.py``).

Each topic has several facets; each facet is written down for two to four products, so
many memories share a topic's words and only a facet word or a product tells them apart.
Prompts are long and vague (openers, hedges, a paraphrase of the facet, maybe a product),
some name a single distinctive word, and about a third are about something else entirely
(some of those share a common word with the store). Everything comes from the tables
below and ``random.Random(SEED)``: the same output every run, no network, no model.

Usage:
    python3 tests/eval/build_wide.py                 # write tests/eval/wide/ (git-ignored)
    python3 tests/eval/build_wide.py --out DIR       # write DIR/{store,prompts.jsonl,meta.json}
    python3 scripts/memory.py eval tests/eval/wide --split holdout
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

SEED = 20261124
NOW = "2026-11-01T00:00:00Z"
HERE = Path(__file__).resolve().parent
FOLDERS = {"decision": "decisions", "runbook": "runbooks", "constraint": "constraints",
           "preference": "preferences", "tech_debt": "tech-debt", "session_summary": "sessions"}

PRODUCTS = [("soil probe", "soilprobe"), ("weather mast", "weathermast"),
            ("valve controller", "valvectl"), ("gateway", "gateway")]

# topic: (shared tags, shared body sentences, [facet]); facet:
# (key, category, title, facet tags, vague description used by prompts, fact)
TOPICS = {
    "radio": (["lorawan", "radio"], [
        "Uplinks go through the LoRaWAN network server before the ingest service sees them.",
        "Radio settings are part of the device profile and change with a firmware release.",
        "Field range tests are logged in the radio spreadsheet per farm."], [
        ("spreading-factor", "decision", "Pin spreading factor SF9 instead of adaptive data rate", ["sf9", "adr"],
         "the thing where nodes pick their own data rate and kept flapping", "ADR oscillated on hilly farms; SF9 is fixed and ADR is off."),
        ("duty-cycle", "constraint", "EU868 duty cycle caps airtime at one percent", ["duty-cycle", "eu868", "airtime"],
         "how much we are allowed to transmit in Europe", "Each sub-band allows 1% airtime; bursts beyond it are dropped by the stack."),
        ("join-retries", "runbook", "Nodes stuck in OTAA join loop after gateway swap", ["otaa", "join"],
         "devices that never come online after we replaced the box on the barn", "Clear the DevNonce cache on the network server, then power-cycle the node."),
        ("antenna-placement", "preference", "Mount antennas above the canopy line", ["antenna", "canopy"],
         "where the aerial should go on the pole so signal is not eaten by the crop", "Antennas go at least 50 cm above the tallest crop; corn fields need the long mast."),
        ("downlink-queue", "tech_debt", "Downlink queue flushed on every network server restart", ["downlink", "queue"],
         "messages we send to the devices getting lost when the server bounces", "Queued downlinks live in memory only; a restart loses pending valve commands."),
    ]),
    "ble": (["ble", "provisioning"], [
        "Provisioning happens in the field app over Bluetooth before the node joins the network.",
        "Installers pair devices with the QR code printed inside the lid."], [
        ("pairing-pin", "decision", "Use passkey entry pairing with the lid QR code", ["passkey", "qr"],
         "how installers pair a new unit with their phone securely", "Passkey pairing with the six digits from the QR label; just-works pairing was rejected."),
        ("mtu", "constraint", "Android BLE MTU negotiation fails on some Samsung phones", ["mtu", "samsung", "android"],
         "older phones that cannot send big chunks over bluetooth", "Some Samsung models refuse MTU above 23 bytes; the app falls back to small writes."),
        ("provision-timeout", "runbook", "Provisioning times out at the certificate step", ["certificate", "timeout"],
         "the setup wizard hanging near the end when the unit gets its certificate", "Restart the node's BLE service from the debug menu and retry; the cert write needs a fresh bond."),
        ("advertising-interval", "preference", "Advertise every two seconds only while the lid is open", ["advertising", "reed-switch"],
         "keeping bluetooth quiet to save power unless someone is installing it", "The reed switch enables advertising; closed lids advertise nothing."),
    ]),
    "ota": (["ota", "firmware"], [
        "Firmware images are signed in CI and rolled out by ring.",
        "Rollouts start with the pilot farms and widen after a week without regressions."], [
        ("delta-updates", "decision", "Ship delta images over LoRaWAN fragmentation", ["delta", "fragmentation"],
         "sending only the changed part of an update over the slow radio link", "Deltas are generated with the diff tool in CI; full images only over BLE."),
        ("bootloader-rollback", "runbook", "Node boot loops after an update: force MCUboot rollback", ["mcuboot", "rollback", "bootloop"],
         "a device that keeps restarting right after it got new software", "Hold the button for ten seconds to confirm the old slot; MCUboot swaps back."),
        ("update-window", "constraint", "Updates only between 01:00 and 04:00 local farm time", ["maintenance-window", "night"],
         "what time of day we are allowed to push new software to customers", "Irrigation runs in the morning; updates must finish before 04:00."),
        ("image-size", "tech_debt", "Application image is 2 KB short of the secondary slot", ["flash", "partition"],
         "running out of room in flash for the next build on the chip", "The secondary slot has almost no headroom; the partition table needs a redesign."),
    ]),
    "power": (["battery", "power"], [
        "Units run on two lithium thionyl chloride cells with a supercap for radio bursts.",
        "Power budgets are measured with the current probe on the bench rig."], [
        ("sleep-current", "constraint", "Sleep current must stay under 8 microamps", ["sleep-current", "microamps"],
         "how little current the board may draw when it is idle", "Above 8 uA the ten year lifetime target is missed."),
        ("brownout", "runbook", "Brownout resets in cold weather", ["brownout", "cold"],
         "units rebooting on frosty nights", "Cells sag below the brownout threshold under radio load; raise the supercap charge before transmit."),
        ("solar-option", "decision", "Offer a solar panel only for the weather mast", ["solar", "panel"],
         "whether we sell the sun-powered variant for everything", "Only the mast has room and load for the panel; probes stay on primary cells."),
        ("battery-estimate", "tech_debt", "Battery percentage is a linear guess from voltage", ["voltage", "estimate"],
         "the remaining-charge number in the app being wrong", "The curve is flat for years then falls off; a coulomb counter would fix it."),
    ]),
    "calibration": (["calibration", "sensor"], [
        "Calibration coefficients are stored per unit and pulled by serial number.",
        "Probes are checked against the reference soil samples in the lab."], [
        ("soil-type", "decision", "Calibrate moisture per soil texture class", ["soil-texture", "clay", "loam"],
         "moisture readings being off depending on what kind of dirt the farm has", "Sand, loam and clay get separate curves selected in the app."),
        ("temperature-drift", "runbook", "Moisture readings drift with soil temperature", ["drift", "temperature"],
         "numbers that creep up during the afternoon heat", "Apply the temperature compensation table from the lab; check the thermistor first."),
        ("factory-coefficients", "constraint", "Coefficients written at the factory are read-only in the field", ["coefficients", "read-only"],
         "whether installers can change the conversion values on site", "Field changes go into an offset layer; factory values never change."),
        ("rain-gauge", "preference", "Report rain in tenths of a millimetre", ["rain-gauge", "millimetre"],
         "what unit we use for precipitation numbers", "Tipping bucket counts convert to 0.1 mm steps; no inches in the payload."),
    ]),
    "factory": (["manufacturing", "factory"], [
        "The contract manufacturer runs our test jig at the end of the line.",
        "Every unit's test log is uploaded with its serial number."], [
        ("test-jig", "runbook", "End-of-line jig fails the RF power check", ["test-jig", "rf-power"],
         "the station at the factory rejecting boards for the transmitter", "Recalibrate the attenuator with the golden unit before blaming the boards."),
        ("serial-format", "decision", "Serial numbers encode week, line and sequence", ["serial-number", "barcode"],
         "how the serial ids on the sticker are built", "Format WWYY-L-NNNNN; the barcode carries the same text."),
        ("conformal-coating", "constraint", "Conformal coating must skip the sensor window", ["conformal-coating", "masking"],
         "the protective coating spray that must not cover the measuring part", "Masking tape over the capacitive window; coated windows read zero."),
        ("yield-report", "tech_debt", "Yield report is a spreadsheet emailed weekly", ["yield", "spreadsheet"],
         "how we find out weekly how many boards fail at the plant", "Nobody owns it; it should be a dashboard fed by the jig logs."),
    ]),
    "zephyr": (["zephyr", "build"], [
        "Firmware builds with west inside the pinned SDK container.",
        "Board definitions live in the boards folder of the firmware repo."], [
        ("west-manifest", "decision", "Pin every module in the west manifest by SHA", ["west", "manifest"],
         "locking the versions of the RTOS modules we pull in", "Branch names moved under us twice; SHAs only."),
        ("devicetree-overlay", "preference", "One devicetree overlay per board revision", ["devicetree", "overlay"],
         "how we describe pin changes between hardware versions", "Overlays are named after the revision; no ifdefs in C for pins."),
        ("kconfig-stack", "runbook", "Hard fault from main stack overflow", ["hard-fault", "stack-overflow", "kconfig"],
         "the firmware crashing with a fault right at boot after adding a feature", "Raise CONFIG_MAIN_STACK_SIZE and enable the stack sentinel to confirm."),
        ("sdk-upgrade", "tech_debt", "Still on SDK 0.16 because of the radio driver", ["sdk", "upgrade"],
         "being stuck on an old toolchain version we cannot upgrade", "The vendor radio driver does not build on newer SDKs; upstreaming is pending."),
    ]),
    "ingest": (["ingest", "pipeline"], [
        "The Go ingest service decodes payloads and writes readings.",
        "Payload decoders are versioned with the firmware payload format."], [
        ("decoder-versions", "decision", "Decode payloads by format byte, not by device type", ["decoder", "format-byte"],
         "how the backend knows how to read the bytes a device sends", "The first byte names the layout; device type alone broke with mixed firmware."),
        ("duplicate-uplinks", "runbook", "Duplicate readings when two gateways hear one node", ["dedup", "duplicates"],
         "the same reading showing up twice in the charts", "Dedup on device id and frame counter within a 30 second window."),
        ("backpressure", "constraint", "Network server webhooks time out after five seconds", ["webhook", "backpressure"],
         "the upstream giving up on us when we are slow to answer", "Ack fast, queue internally; slow handlers get retried and duplicated."),
        ("nats-queue", "decision", "Use NATS JetStream between decoder and writer", ["nats", "jetstream"],
         "the message bus between the decoder and the database", "JetStream gives replay for reprocessing; Kafka was too heavy for the team."),
    ]),
    "storage": (["timescaledb", "storage"], [
        "Readings land in hypertables partitioned by day.",
        "Retention and compression run as scheduled jobs in the database."], [
        ("compression", "decision", "Compress chunks older than seven days", ["compression", "chunks"],
         "shrinking old data so the disk does not fill", "Compression by device id segment; queries on old data stay fast enough."),
        ("retention", "constraint", "Raw readings kept two years, hourly rollups forever", ["retention", "rollups"],
         "how long we hold on to the detailed raw history", "The contract promises two years of raw data; rollups keep trends."),
        ("continuous-aggregate", "runbook", "Continuous aggregate stops refreshing", ["continuous-aggregate", "refresh-policy"],
         "the summary tables no longer refreshing and the charts flattening out", "Check the job stats view, re-add the refresh policy, refresh the window by hand."),
        ("wide-table", "tech_debt", "One wide table for all sensor kinds", ["schema", "nullable"],
         "the database layout having lots of empty columns", "Every new sensor adds a nullable column; a narrow table per kind is the fix."),
    ]),
    "alerts": (["grafana", "alerting"], [
        "Farm-facing alerts and on-call alerts are separate rule folders.",
        "Alert rules are provisioned from the ops repo, never edited in the UI."], [
        ("offline-alert", "decision", "Alert on a silent device after three missed uplinks", ["offline", "missed-uplinks"],
         "when we decide a unit has gone dark and offline", "Three missed intervals, not a fixed time, because intervals differ by product."),
        ("frost-alert", "preference", "Frost warnings go to SMS, not push", ["frost", "sms"],
         "how farmers hear about freezing nights and frost", "Push gets muted overnight; SMS wakes them up."),
        ("alert-noise", "runbook", "Alert storm after a gateway outage", ["alert-storm", "silence"],
         "getting flooded with pages when one site loses connectivity", "Silence by gateway label, then group rules by site."),
        ("pagerduty-limit", "constraint", "Only two on-call seats on the paging plan", ["pagerduty", "on-call"],
         "how many people can get paged", "The plan has two seats; the rest see alerts in chat."),
    ]),
    "app": (["flutter", "field-app"], [
        "The field app works offline and syncs when it sees a network.",
        "Installers and farmers use the same app with different roles."], [
        ("offline-sync", "decision", "Sync with an operation log and last-writer-wins", ["offline-sync", "oplog"],
         "what happens when two people edit the same farm without signal", "Each change is an operation; conflicts resolve by timestamp."),
        ("map-tiles", "constraint", "Map tile provider allows 50k tiles per month", ["map-tiles", "quota"],
         "the monthly limit on the background satellite map pictures", "Tiles are cached on device for 30 days to stay under the quota."),
        ("state-management", "preference", "Riverpod for state, no global singletons", ["riverpod", "state"],
         "how the mobile code keeps screen state", "Providers per feature; singletons made tests flaky."),
        ("ios-background", "runbook", "iOS kills background sync after 30 seconds", ["ios", "background-fetch"],
         "sync stopping when the phone is in the pocket", "Split the upload into batches and resume with background fetch."),
    ]),
    "compliance": (["certification", "compliance"], [
        "Radio certification is repeated when the antenna or RF layout changes.",
        "Test reports are filed in the compliance drive by product."], [
        ("fcc-retest", "constraint", "An antenna change needs a new FCC filing", ["fcc", "antenna-change"],
         "what paperwork is needed if we swap the aerial for another antenna", "Any antenna gain change voids the grant; budget six weeks."),
        ("ce-red", "decision", "Self-declare CE RED with a notified body review", ["ce", "red"],
         "how we get the European radio approval", "A notified body reviews the file; full type examination was too slow."),
        ("ip67", "constraint", "Enclosures must pass IP67 immersion", ["ip67", "immersion"],
         "how waterproof the enclosures have to be", "Thirty minutes at one metre; irrigation floods the probes."),
    ]),
    "keys": (["security", "keys"], [
        "Device keys are injected at the factory by the hardware security module.",
        "No key ever appears in a log, a ticket or a spreadsheet."], [
        ("appkey-rotation", "decision", "Rotate LoRaWAN AppKeys only through rejoin", ["appkey", "rejoin"],
         "changing the secret a device uses to join", "Keys change through a forced rejoin; manual edits desynced units."),
        ("secure-element", "constraint", "Keys live in the ATECC608 secure element", ["atecc608", "secure-element"],
         "where the secret keys are physically stored on the board", "The MCU never sees the root key; signing happens in the element."),
        ("leaked-key", "runbook", "A device key shows up somewhere public", ["leak", "revoke"],
         "what to do if a device credential leaked", "Revoke on the network server, schedule a rejoin, then audit the jig logs."),
    ]),
    "irrigation": (["irrigation", "scheduling"], [
        "Valve schedules are computed in the cloud and sent as downlinks.",
        "Farmers can always override a schedule in the app."], [
        ("et-model", "decision", "Schedule from evapotranspiration, not fixed timers", ["evapotranspiration", "et0"],
         "how we work out when to water and for how long, timers or something smarter", "ET0 from the mast plus soil moisture; timers overwatered."),
        ("valve-failsafe", "constraint", "Valves close after 2 hours without a heartbeat", ["failsafe", "heartbeat"],
         "what a valve does if it loses contact", "A valve open longer than two hours without contact closes itself."),
        ("water-hammer", "runbook", "Pipes bang when valves close at once", ["water-hammer", "stagger"],
         "loud knocking in the irrigation lines", "Stagger closures by five seconds per zone."),
    ]),
    "support": (["support", "onboarding"], [
        "Support tickets come in by email and the in-app chat.",
        "New farms get a call in their first week."], [
        ("install-checklist", "preference", "Photograph every install with the serial visible", ["photo", "checklist"],
         "what installers should capture when they finish at a site, photos and so on", "One photo with the sticker readable, one of the placement."),
        ("refund-policy", "constraint", "Refunds only within 60 days of activation", ["refund", "activation"],
         "when a customer can get their money back after activation", "Sixty days from first uplink, not from shipping."),
        ("ticket-triage", "runbook", "Customer says no data since yesterday", ["no-data", "triage"],
         "the usual first steps when a farmer says the charts are empty and there is no data", "Check last uplink, then the gateway, then the battery estimate."),
    ]),
    "pcb": (["pcb", "hardware"], [
        "Board revisions are tracked in the hardware repo with the BOM.",
        "Layouts are reviewed by two people before fab."], [
        ("revc-changes", "decision", "Rev C moves the antenna feed to the board edge", ["rev-c", "antenna-feed"],
         "what changed in the latest board version", "Edge feed improved range by 3 dB; ground pour redone."),
        ("esd", "runbook", "Sensor input dies after ESD events", ["esd", "tvs-diode"],
         "probes that stop measuring after a lightning storm", "Replace the TVS diode; rev C adds a second one."),
        ("bom-shortage", "tech_debt", "Single-source voltage regulator in the BOM", ["bom", "second-source"],
         "one part we can only buy from one vendor and the shortage risk", "No qualified second source; a shortage would stop production."),
    ]),
}

# Whole prompts about something else, some sharing a common word with the store.
SILENT_PROMPTS = [
    "can you write a python function that reverses a linked list and explain the big-o",
    "draft a polite email to my landlord about the heating not working since monday",
    "what's a good recipe for banana bread, I have three very ripe bananas and no eggs",
    "explain the difference between tcp and udp like I am new to networking",
    "help me plan a three day trip to lisbon with kids, we like museums and beaches",
    "my phone battery drains really fast since the last update, any general tips",
    "how do I center a div horizontally and vertically in css these days",
    "summarize the plot of pride and prejudice in a few sentences",
    "what are some good exercises for lower back pain when sitting all day",
    "write a haiku about autumn leaves falling on a quiet street",
    "how do I convert a pandas dataframe column from string to datetime",
    "what is the capital of australia and why is it not sydney",
    "give me ideas for a birthday party for a seven year old who loves dinosaurs",
    "I need a regex that matches an email address, nothing fancy",
    "how does compound interest work if I put money in every month",
    "can you review this sql query, it feels slow: select * from orders where total > 100",
    "what should I pack for a week of hiking in the alps in september",
    "translate good morning, how are you into spanish and german please",
    "how do I undo my last git commit but keep the changes in my working tree",
    "why is the sky blue, explain it for a curious ten year old",
    "recommend some sci-fi novels similar to the martian",
    "what's the best way to learn to touch type as an adult",
    "how do I make my sourdough starter more active in a cold kitchen",
    "explain what a closure is in javascript with a small example",
    "our team offsite is next month, suggest some icebreaker games",
    "write a cover letter opening for a junior data analyst role",
    "how many cups of coffee a day is too many",
    "what does the error 'module not found' mean in node and how do I fix it generally",
    "how do I set up a python virtual environment on windows",
    "suggest a name for a cat that is orange and very lazy",
    "how do solar panels on a house roof actually save money over ten years",
    "the weather this weekend looks rainy, what indoor activities are fun in a city",
    "what is a good stretching routine before running a 10k",
    "explain how a bloom filter works and when to use one",
    "how can I improve my sleep schedule after travelling across time zones",
    "write unit tests for a function that adds two numbers in typescript",
    "what's the difference between a virus and bacteria",
    "help me write a toast for my sister's wedding, funny but warm",
    "how do I keep basil alive on a windowsill",
    "what are the rules of chess castling again",
    "can you explain kubernetes pods versus deployments in plain words",
    "what is the safest way to store passwords in a web app database",
    "my bike chain keeps slipping when I pedal hard, what should I check",
    "how do I politely decline a meeting that has no agenda",
    "list some healthy snacks for long drives",
    "how long should I boil an egg for a runny yolk",
    "what is the difference between weather and climate",
    "can you help me budget for a used car purchase",
    "explain recursion with a simple drawing analogy",
    "how do I clean a cast iron pan that has rust spots",
]

OPENERS = ["hey, before I dig in:", "so I'm picking up a ticket from last sprint and", "quick context question,",
           "I was talking to one of the installers today and", "not sure who knows this, but", "",
           "coming back to this after a few weeks off -", "a customer asked me something and"]
CLOSERS = ["what did we end up doing about that?", "do we have anything written down on it?",
           "I don't remember the details, can you remind me?", "what was the reasoning again?",
           "is there a known fix or a rule for it?", "what's our current position on this?"]
FARMS = ["Oakridge", "Millbrook", "Redfern", "Casterly", "Ashgrove", "Bellwether", "Dunmore", "Fallow Creek",
         "Glenhaven", "Harrow Hill", "Ivywood", "Juniper Flats", "Kestrel Bay", "Larkspur"]
NEIGHBOURS = [("session_summary", "{label} field trial notes at {farm}"), ("tech_debt", "{label} follow-ups from the {farm} install"),
              ("runbook", "{label} checklist for the {farm} site visit"), ("decision", "{label} setup agreed with {farm}")]
ONE_WORD = ["tell me about {w}", "anything on {w}?", "what do we know about {w}", "{w} notes please"]


def _stamp(rng: random.Random, days_back_max: int) -> str:
    dt = datetime(2026, 10, 25, tzinfo=timezone.utc) - timedelta(days=rng.randint(1, days_back_max),
                                                                   minutes=rng.randint(0, 1400))
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def _content(category: str, fact: str, extra: list, product: str) -> dict:
    context = " ".join(extra)
    if category == "decision":
        return {"status": "accepted", "context": context, "decision": f"{fact} Applies to the {product}.",
                "rationale": [extra[-1]]}
    if category == "runbook":
        return {"trigger": f"Seen on the {product}. {context}", "steps": [fact], "verification": "The symptom is gone for a day."}
    if category == "constraint":
        return {"kind": "limitation", "rule": f"{fact} ({product})", "impact": [context], "severity": "medium", "active": True}
    if category == "preference":
        return {"topic": f"{product}", "value": fact, "reason": context, "strength": "default"}
    if category == "tech_debt":
        return {"status": "open", "priority": "medium", "description": f"{fact} Seen on the {product}.",
                "reason_deferred": context}
    return {"goal": context, "outcome": "success", "completed": [fact], "next_actions": ["Follow up next week."]}


def build(out: Path) -> dict:
    rng = random.Random(SEED)
    memories, facets = [], []
    for topic, (topic_tags, topic_text, facet_rows) in TOPICS.items():
        for key, category, title, tags, vague, fact in facet_rows:
            chosen = rng.sample(PRODUCTS, rng.randint(2, 4))
            ids = []
            for name, ptag in chosen:
                mid = f"{key}-{ptag}"
                created = _stamp(rng, 700)
                rec = {"schema_version": "1.0", "category": category, "id": mid, "title": f"{title} ({name})",
                       "created_at": created, "updated_at": created,
                       "tags": sorted(set(topic_tags + tags + [ptag])), "record_status": "active",
                       "content": _content(category, fact, rng.sample(topic_text, min(2, len(topic_text))), name)}
                memories.append(rec)
                ids.append((mid, name))
            facets.append((topic, key, title, tags, vague, ids))
        # a session summary per topic that touches every facet's words
        sid = f"session-{topic}-review"
        created = _stamp(rng, 400)
        memories.append({"schema_version": "1.0", "category": "session_summary", "id": sid,
                         "title": f"Session: {topic} review", "created_at": created, "updated_at": created,
                         "tags": topic_tags + ["session"], "record_status": "active",
                         "content": _content("session_summary", " ".join(r[2] for r in facet_rows) + ".",
                                             topic_text[:2], "whole fleet")})
        # neighbours: same topic words, a farm, no facet word (hard negatives, many per topic)
        for farm in FARMS:
            category, pattern = NEIGHBOURS[rng.randrange(len(NEIGHBOURS))]
            mid = f"{topic}-{farm.lower().replace(' ', '-')}"
            created = _stamp(rng, 600)
            label = " ".join(topic_tags).replace("-", " ").capitalize()
            memories.append({"schema_version": "1.0", "category": category, "id": mid,
                             "title": pattern.format(label=label, farm=farm), "created_at": created,
                             "updated_at": created, "tags": topic_tags + [farm.lower().replace(" ", "-")],
                             "record_status": "active",
                             "content": _content(category, f"Notes from {farm}.", rng.sample(topic_text, 2), "farm")})
    prompts = []
    for topic, key, title, tags, vague, ids in facets:
        mid, pname = ids[rng.randrange(len(ids))]
        opener, closer = rng.choice(OPENERS), rng.choice(CLOSERS)
        prompts.append({"id": f"w-{key}-product", "kind": "vague_product", "expected": [mid],
                        "prompt": f"{opener} {vague} on the {pname} - {closer}".strip()})
        prompts.append({"id": f"w-{key}-facet", "kind": "vague", "expected": [i for i, _ in ids],
                        "prompt": f"{rng.choice(OPENERS)} {vague}, {rng.choice(CLOSERS)}".strip()})
        word = tags[0].replace("-", " ")
        prompts.append({"id": f"w-{key}-word", "kind": "one_word", "expected": [i for i, _ in ids],
                        "prompt": rng.choice(ONE_WORD).format(w=word)})
        words = [w for w in title.split() if len(w) > 3][:3]
        prompts.append({"id": f"w-{key}-title", "kind": "title_words", "expected": [i for i, _ in ids],
                        "prompt": f"{rng.choice(OPENERS)} something about {' '.join(words).lower()}, {rng.choice(CLOSERS)}".strip()})
    for n, text in enumerate(SILENT_PROMPTS):
        prompts.append({"id": f"w-silent-{n:03d}", "kind": "silent", "expected": [], "prompt": text})
        prompts.append({"id": f"w-silent-long-{n:03d}", "kind": "silent_long", "expected": [],
                        "prompt": f"{rng.choice(OPENERS)} {text}, {rng.choice(CLOSERS)}".strip()})
    return write_set(out, memories, prompts, "Fieldline, generated by build_wide.py")


def write_set(out: Path, memories: list, prompts: list, description: str) -> dict:
    """Write ``out/store/.claude/memory/<folder>/<id>.json``, ``prompts.jsonl`` and ``meta.json`` afresh."""
    memory_root = out / "store" / ".claude" / "memory"
    if (out / "store").exists():
        shutil.rmtree(out / "store")
    for rec in memories:
        folder = memory_root / FOLDERS[rec["category"]]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{rec['id']}.json").write_text(json.dumps(rec, indent=2) + "\n", encoding="utf-8")
    (out / "prompts.jsonl").write_text("".join(json.dumps(p) + "\n" for p in prompts), encoding="utf-8")
    (out / "meta.json").write_text(json.dumps({"now": NOW, "description": description}) + "\n", encoding="utf-8")
    return {"memories": len(memories), "prompts": len(prompts), "silent": sum(1 for p in prompts if not p["expected"])}


def run(argv, doc: str, folder: str, builder) -> int:
    """The command line of a set generator: ``--out`` (default ``tests/eval/<folder>``), then ``builder(out)``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / folder), help=f"output folder (default: tests/eval/{folder})")
    args = parser.parse_args(argv)
    counts = builder(Path(args.out))
    print(f"wrote {counts['memories']} memories and {counts['prompts']} prompts "
          f"({counts['silent']} unrelated) to {args.out}")
    return 0


def main(argv=None) -> int:
    return run(argv, __doc__, "wide", build)


if __name__ == "__main__":
    raise SystemExit(main())
