"""Runs NeMo Gym's own workplace_assistant tools and reward (NVIDIA-NeMo/Gym 07d6b0d) on many inputs
and writes what they answer to upstream_cases.json, so the TypeScript port is checked against them.

    ./generate.sh            # extracts the upstream folder from the mirror, runs this under pandas 2.3

Arguments: <folder holding resources_servers/workplace_assistant at 07d6b0d> <output json>.
Inputs are written out below or drawn from a seeded random.Random(15), so a rerun writes the same file.
"""
import io
import json
import math
import sys
import contextlib

sys.path.insert(0, sys.argv[1])
import pandas as pd  # noqa: E402
from resources_servers.workplace_assistant import utils  # noqa: E402


def clean(value):
    """JSON-safe: NaN as {"nan": true}, None as null, numpy scalars as Python ones."""
    if isinstance(value, float) and math.isnan(value):
        return {"nan": True}
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if hasattr(value, "item"):
        return clean(value.item())
    return value


def frame(df):
    """A table as its columns, row labels and the SHA-256 of its cells as compact JSON (keeps the file small)."""
    import hashlib

    cells = json.dumps(clean(df.values.tolist()), ensure_ascii=False, separators=(",", ":"))
    return {"columns": list(df.columns), "index": [int(i) for i in df.index], "rows_sha256": hashlib.sha256(cells.encode()).hexdigest()}


def act(tool, **kwargs):
    return {"name": tool, "arguments": json.dumps(kwargs)}


def raw(name, arguments):
    return {"name": name, "arguments": arguments}


# ---------- tool sequences: every call's output and the final compared state ----------
SEQUENCES = [
    [act("email_reply_email", email_id="00000057", body="Thanks for the update - I will get back to you tomorrow.")],
    [act("email_send_email", recipient="Carlos.Rodriguez@atlas.com", subject="Hi", body="Hello"), act("email_send_email", recipient="a@b.co", subject="Two", body="x")],
    [act("email_delete_email", email_id="00000259"), act("email_send_email", recipient="kofi.mensah@atlas.com", subject="S", body="B")],
    [act("email_forward_email", email_id="00000373", recipient="Raj.Patel@atlas.com"), act("email_forward_email", email_id="99999999", recipient="x@y.z")],
    [act("email_send_email", recipient="nobody", subject="S", body="B"), act("email_send_email", recipient="a@b.c", subject="", body="B")],
    [act("email_search_emails", query="kofi", page=1, page_size=1), act("email_search_emails", query="budget", date_min="2023-11-01", date_max="2023-11-15", page=2, page_size=3)],
    [act("email_search_emails", query="zzzz-no-match"), act("email_get_email_information_by_id", email_id="00000057", field="subject"), act("email_get_email_information_by_id", email_id="00000057", field="nope")],
    [act("calendar_update_event", event_id="00000252", field="event_name", new_value="Risk Management Forum")],
    [act("calendar_create_event", event_name="Sync", participant_email="Luis.Ortiz@atlas.com", event_start="2023-12-01 10:00:00", duration="30")],
    [act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="tomorrow at 10", duration="30")],
    [act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="2023-12-01T10:00", duration=30)],
    [act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="2023-12-01 10:00:00", duration="-5"), act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="2023-12-01 10:00:00", duration="half an hour")],
    [act("calendar_delete_event", event_id="00000013"), act("calendar_create_event", event_name="Review", participant_email="a@atlas.com", event_start="Dec 4 2023 2pm", duration="60")],
    [act("calendar_update_event", event_id="00000013", field="event_start", new_value="2023-13-01 10:00:00"), act("calendar_update_event", event_id="00000013", field="duration", new_value="45"), act("calendar_update_event", event_id="13", field="duration", new_value="45")],
    [act("calendar_update_event", event_id="00000013", field="participant_email", new_value="Fatima.Khan@atlas.com"), act("calendar_update_event", event_id="00000013", field="location", new_value="x")],
    [act("calendar_search_events", query="sync", time_min="2023-11-01 00:00:00", page=1, page_size=3), act("calendar_search_events", query="luis", time_max="not a time"), act("calendar_get_event_information_by_id", event_id="00000013", field="duration")],
    [act("analytics_create_plot", time_min="2023-11-30", time_max="2024-06-30", value_to_plot="total_visits", plot_type="bar"), act("analytics_create_plot", time_min="2023-11-01", time_max="2023-11-30", value_to_plot="visits", plot_type="bar")],
    [act("analytics_total_visits_count", time_min="2023-11-25", time_max="2023-11-30"), act("analytics_engaged_users_count", time_min="2023-11-25"), act("analytics_traffic_source_count", time_min="2023-11-28", traffic_source="direct"), act("analytics_get_average_session_duration", time_min="2023-11-28", time_max="2023-11-30")],
    [act("analytics_get_visitor_information_by_id", visitor_id="0860"), act("analytics_get_visitor_information_by_id", visitor_id="nope")],
    [act("project_management_create_task", task_name="Fix login", assigned_to_email="Leila.Azizi@atlas.com", list_name="Backlog", due_date="2023-12-05", board="Front end")],
    [act("project_management_create_task", task_name="Fix login", assigned_to_email="nobody@atlas.com", list_name="Backlog", due_date="2023-12-05", board="Front end"), act("project_management_create_task", task_name="Fix login", assigned_to_email="leila.azizi@atlas.com", list_name="backlog", due_date="2023-12-05", board="Front end")],
    [act("project_management_update_task", task_id="00000149", field="list_name", new_value="In Progress"), act("project_management_update_task", task_id="00000037", field="assigned_to_email", new_value="Leila.Azizi@atlas.com"), act("project_management_delete_task", task_id="00000001")],
    [act("project_management_search_tasks", task_name="carousel"), act("project_management_search_tasks", assigned_to_email="leila.azizi@atlas.com", board="front"), act("project_management_search_tasks", assigned_to_email="bad-email")],
    [act("customer_relationship_manager_update_customer", customer_id="00000095", field="assigned_to_email", new_value="Raj.Patel@atlas.com"), act("customer_relationship_manager_update_customer", customer_id="00000037", field="status", new_value="lost"), act("customer_relationship_manager_update_customer", customer_id="00000037", field="status", new_value="Lost")],
    [act("customer_relationship_manager_delete_customer", customer_id="00000014"), act("customer_relationship_manager_add_customer", customer_name="Dakota Thomas", assigned_to_email="nadia.moreau@atlas.com", status="Lead")],
    [act("customer_relationship_manager_add_customer", customer_name="Dakota Thomas", assigned_to_email="Nadia.Moreau@atlas.com", status="Lead", customer_email="D.T@x.com", notes="hi", customer_phone="")],
    [act("customer_relationship_manager_search_customers", product_interest="Consulting", status="Proposal", last_contact_date_max="2023-11-09", page=1, page_size=50), act("customer_relationship_manager_search_customers", customer_name="Casey Wilson", page=1, page_size=1)],
    [act("company_directory_find_email_address", name="Nadia"), act("company_directory_find_email_address", name="zz"), act("company_directory_find_email_address")],
    [act("email_send_email", recipient="a@b.c", subject="S", body="B", cc="x"), act("no_such_tool", x=1)],
]


def reply_text(result):
    """The route's reply body as Starlette's JSONResponse renders it; None where it cannot (a NaN cell)."""
    try:
        return json.dumps({"output": result}, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"), default=lambda o: o.item())
    except ValueError:
        return None


def run_sequence(actions):
    env = utils.get_tools(["email", "calendar", "analytics", "project_management", "customer_relationship_manager"])
    outputs = []
    for a in actions:
        try:
            args = json.loads(a["arguments"])
            result = env["functions"][a["name"]](**args)
            outputs.append({"output": clean(result), "reply_text": reply_text(result)})
        except Exception as e:  # the route's answer for a failing call
            error = f"Error executing tool '{a['name']}': {e}"
            outputs.append({"error": error, "reply_text": reply_text(error)})
    return outputs


def state_after(actions):
    with contextlib.redirect_stdout(io.StringIO()):
        env = utils.execute_actions_and_reset_state(actions)
    c = env["containers"]
    return [frame(df) for df in (c["calendar"]._calendar_events, c["email"]._emails, c["analytics"]._plots_data, c["project_management"]._project_tasks, c["customer_relationship_manager"]._crm_data)]


# ---------- reward pairs: is_correct(predicted, ground_truth) ----------
GT = {
    "reply": [act("email_reply_email", email_id="00000057", body="Thanks for the update - I will get back to you tomorrow.")],
    "rename": [act("calendar_update_event", event_id="00000252", field="event_name", new_value="Risk Management Forum")],
    "reassign": [act("customer_relationship_manager_update_customer", customer_id=c, field="assigned_to_email", new_value="raj.patel@atlas.com") for c in ("00000095", "00000080", "00000035")],
    "delete4": [act("customer_relationship_manager_delete_customer", customer_id=c) for c in ("00000009", "00000112", "00000039", "00000047")],
    "lost": [act("customer_relationship_manager_update_customer", customer_id=c, field="status", new_value="Lost") for c in ("00000037", "00000195", "00000058")],
    "create": [act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="2023-12-01 10:00:00", duration="30")],
    "plot": [act("analytics_create_plot", time_min="2023-11-01", time_max="2023-11-30", value_to_plot="total_visits", plot_type="bar")],
    "task": [act("project_management_create_task", task_name="Fix login", assigned_to_email="leila.azizi@atlas.com", list_name="Backlog", due_date="2023-12-05", board="Front end")],
    "add": [act("customer_relationship_manager_add_customer", customer_name="Dakota Thomas", assigned_to_email="nadia.moreau@atlas.com", status="Lead")],
    "delsend": [act("email_delete_email", email_id="00000259"), act("email_send_email", recipient="kofi.mensah@atlas.com", subject="S", body="B")],
    "none": [],
}
READS = [act("email_search_emails", query="kofi"), act("company_directory_find_email_address", name="raj")]
PAIRS = [
    ("reply", GT["reply"]),
    ("reply", READS + GT["reply"]),
    ("reply", [act("email_reply_email", email_id="00000057", body="THANKS FOR THE UPDATE - I WILL GET BACK TO YOU TOMORROW.")]),
    ("reply", [act("email_reply_email", email_id="00000057", body="Thanks for the update.")]),
    ("reply", GT["reply"] * 2),
    ("reply", [act("email_send_email", recipient="carlos.rodriguez@atlas.com", subject="RE: Task Update on Develop prototype for report generation", body="Thanks for the update - I will get back to you tomorrow.")]),
    ("rename", GT["rename"]),
    ("rename", [act("calendar_update_event", event_id="00000252", field="event_name", new_value="risk management forum")]),
    ("rename", [act("calendar_update_event", event_id=252, field="event_name", new_value="Risk Management Forum")]),
    ("reassign", GT["reassign"]),
    ("reassign", list(reversed(GT["reassign"]))),
    ("reassign", GT["reassign"][:2]),
    ("reassign", [act("customer_relationship_manager_update_customer", customer_id=c, field="assigned_to_email", new_value="Raj.Patel@Atlas.com") for c in ("00000095", "00000080", "00000035")]),
    ("delete4", GT["delete4"]),
    ("delete4", list(reversed(GT["delete4"]))),
    ("delete4", GT["delete4"] + [act("customer_relationship_manager_delete_customer", customer_id="00000009")]),
    ("lost", GT["lost"]),
    ("lost", [act("customer_relationship_manager_update_customer", customer_id=c, field="status", new_value="lost") for c in ("00000037", "00000195", "00000058")]),
    ("create", GT["create"]),
    ("create", [act("calendar_create_event", event_name="SYNC", participant_email="Luis.Ortiz@atlas.com", event_start="2023-12-01 10:00:00", duration="30")]),
    ("create", [act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="2023-12-01T10:00:00", duration="30")]),
    ("create", [act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="2023-12-01 10:00:00", duration=30)]),
    ("create", [act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="2023-12-01 10:00:00", duration="30", location="x")]),
    ("none", [act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="next tuesday", duration="30")]),
    ("none", [act("calendar_create_event", event_name="Sync", participant_email="luis.ortiz@atlas.com", event_start="2023-12-01 10:00:00", duration="0")]),
    ("none", READS),
    ("none", [act("no_such_tool", x=1), raw("email_delete_email", "{bad json")]),
    ("plot", GT["plot"]),
    ("plot", [act("analytics_create_plot", time_min="2023-11-01", time_max="2023-11-30", value_to_plot="total_visits", plot_type="line")]),
    ("plot", [act("analytics_create_plot", time_min="2023-11-01", time_max="2023-11-30", value_to_plot="Total_Visits", plot_type="bar")]),
    ("task", GT["task"]),
    ("task", [act("project_management_create_task", task_name="fix LOGIN", assigned_to_email="Leila.Azizi@atlas.com", list_name="Backlog", due_date="2023-12-05", board="Front end")]),
    ("task", [act("project_management_create_task", task_name="Fix login", assigned_to_email="leila.azizi@atlas.com", list_name="Backlog", due_date="2023-12-05", board="front end")]),
    ("add", GT["add"]),
    ("add", [act("customer_relationship_manager_add_customer", customer_name="Dakota Thomas", assigned_to_email="nadia.moreau@atlas.com", status="Lead", notes="")]),
    ("add", [act("customer_relationship_manager_add_customer", customer_name="Dakota Thomas", assigned_to_email="nadia.moreau@atlas.com", status="Lead", customer_email="")]),
    ("add", [act("customer_relationship_manager_add_customer", customer_name="Dakota Thomas", assigned_to_email="nadia.moreau@atlas.com", status="lead")]),
    ("delsend", GT["delsend"]),
    ("delsend", list(reversed(GT["delsend"]))),
]

TIMESTAMPS = [
    "2023-12-01 10:00:00", "2023-12-01T10:00:00", "2023-12-01 10:00", "2023-12-01", "2023-12-01T10:00:00Z", "2023-12-01 10:00:00+01:00",
    "2023-12-01 10:00:00.500", "2023-12-01 25:00:00", "2023-12-32 10:00:00", "2023-02-29 10:00:00", "2024-02-29 10:00:00", "2023-13-01",
    "2023/12/01 10:00", "12/01/2023", "12/01/2023 10:00", "01.12.2023", "13/01/2023", "Dec 1 2023", "December 1, 2023 10:00 AM",
    "1 Dec 2023 2pm", "Friday, December 1, 2023 at 10:00", "Dec 4 2023 2pm", "2pm", "10:00", "10:00 am", "noon", "tomorrow",
    "tomorrow at 10", "next tuesday", "now", "today", "TBD", "2023-12-01 10am", "2023-12-01 10:00 PM", "20231201", "20231201T100000",
    "2023-12", "2023", "Monday", "December 2023", "the 5th of December 2023", "half past ten", "2023-12-01 at 10:00", "",
    "2023-12-01 9:00:00", "2023-12-1 09:00:00", "2023-12-01 09:00:00 ", " 2023-12-01 09:00:00", "2023-12-01T09:00:00.000Z",
    "2023-12-01T09:00:00+0000", "2023-12-01 09:00:00 UTC", "2023-12-01 09:00:00 EST", "2023-12-01 9am", "2023-12-01 9 am",
    "2023-12-01 09:00 AM", "2023-12-01 13:00 PM", "2023-12-01 00:00 AM", "2023-12-01 12:00 AM", "2023-12-01 12 pm",
    "Dec 1, 2023 9:00 AM", "December 1st, 2023 at 9:00", "Friday December 1 2023 09:00", "Fri, 01 Dec 2023 09:00:00",
    "Fri, 01 Dec 2023 09:00:00 GMT", "1 December 2023", "1st December 2023", "December 1", "Dec 1 9am", "Nov 31 2023",
    "Feb 30 2024", "2023-11-31 10:00:00", "2023-12-01 24:00:00", "2023-12-01 23:60:00", "2023-12-01 10:00:60",
    "12/1/2023 9:00 AM", "1/12/2023", "2023/12/1", "2023.12.01", "12-01-2023", "01-12-2023 09:00", "12/01/23",
    "9:00", "9:00 AM", "09:00:00", "9am", "noon tomorrow", "next Friday at 10am", "in 2 days", "2023-12-01 10:00:00 to 11:00:00",
    "TBA", "N/A", "2023-12-01 morning", "1701421200", "2023-W48-5", "2023-335", "Thursday 2023-12-07 10:00",
]


def random_pairs(seed=15, count=300):
    """Seeded random ground truths over the mutating tools, each paired with a mutation of itself."""
    import random

    rng = random.Random(seed)
    emails = ["00000057", "00000259", "00000373", "00000353", "00000001", "99999999"]
    events = ["00000013", "00000275", "00000252", "00000001", "12345678"]
    tasks = ["00000149", "00000037", "00000001", "00000100"]
    customers = ["00000189", "00000107", "00000014", "00000095", "00000009"]
    people = ["carlos.rodriguez@atlas.com", "leila.azizi@atlas.com", "raj.patel@atlas.com", "nadia.moreau@atlas.com", "Luis.Ortiz@atlas.com"]
    texts = ["Sync", "Quarterly review", "Fix login", "hello", "Thanks!"]
    starts = ["2023-12-01 10:00:00", "2023-12-04T14:30:00", "Dec 5 2023 9am", "next week", "2023-12-32 10:00:00"]

    def one():
        k = rng.randrange(14)
        if k == 0:
            return act("email_send_email", recipient=rng.choice(people + ["bad"]), subject=rng.choice(texts), body=rng.choice(texts))
        if k == 1:
            return act("email_delete_email", email_id=rng.choice(emails))
        if k == 2:
            return act("email_forward_email", email_id=rng.choice(emails), recipient=rng.choice(people))
        if k == 3:
            return act("email_reply_email", email_id=rng.choice(emails), body=rng.choice(texts))
        if k == 4:
            return act("calendar_create_event", event_name=rng.choice(texts), participant_email=rng.choice(people), event_start=rng.choice(starts), duration=rng.choice(["30", "60", "0", "x"]))
        if k == 5:
            return act("calendar_delete_event", event_id=rng.choice(events))
        if k == 6:
            field = rng.choice(["event_name", "participant_email", "event_start", "duration"])
            value = {"event_name": rng.choice(texts), "participant_email": rng.choice(people), "event_start": rng.choice(starts), "duration": rng.choice(["45", "-1"])}[field]
            return act("calendar_update_event", event_id=rng.choice(events), field=field, new_value=value)
        if k == 7:
            return act("analytics_create_plot", time_min="2023-11-01", time_max=rng.choice(["2023-11-30", "2023-12-31"]), value_to_plot=rng.choice(["total_visits", "user_engaged", "bogus"]), plot_type=rng.choice(["bar", "line", "pie"]))
        if k == 8:
            return act("project_management_create_task", task_name=rng.choice(texts), assigned_to_email=rng.choice(people), list_name=rng.choice(["Backlog", "In Review", "Done"]), due_date="2023-12-08", board=rng.choice(["Back end", "Design", "design"]))
        if k == 9:
            return act("project_management_delete_task", task_id=rng.choice(tasks))
        if k == 10:
            field = rng.choice(["list_name", "board", "assigned_to_email", "task_name", "due_date"])
            value = {"list_name": rng.choice(["Completed", "completed"]), "board": rng.choice(["Front end", "Back End"]), "assigned_to_email": rng.choice(people), "task_name": rng.choice(texts), "due_date": "2023-12-15"}[field]
            return act("project_management_update_task", task_id=rng.choice(tasks), field=field, new_value=value)
        if k == 11:
            return act("customer_relationship_manager_add_customer", customer_name=rng.choice(["Dakota Thomas", "Ann Lee"]), assigned_to_email=rng.choice(people), status=rng.choice(["Lead", "Won", "lead"]), **rng.choice([{}, {"customer_email": "A@B.com"}, {"notes": "called"}]))
        if k == 12:
            return act("customer_relationship_manager_delete_customer", customer_id=rng.choice(customers))
        field = rng.choice(["status", "product_interest", "assigned_to_email", "customer_email", "notes", "follow_up_by"])
        value = {"status": rng.choice(["Won", "won", "Lost"]), "product_interest": rng.choice(["Software", "Gadgets"]), "assigned_to_email": rng.choice(people), "customer_email": "New@Mail.com", "notes": rng.choice(texts), "follow_up_by": "2023-12-20 23:59:00"}[field]
        return act("customer_relationship_manager_update_customer", customer_id=rng.choice(customers), field=field, new_value=value)

    def mutate(actions):
        actions = [dict(a) for a in actions]
        m = rng.randrange(8)
        if m == 0 or not actions:
            return actions + [one()]
        i = rng.randrange(len(actions))
        if m == 1:
            return actions[:i] + actions[i + 1:]
        if m == 2:
            return list(reversed(actions))
        if m == 3:
            return actions + [actions[i]]
        if m == 4:
            args = json.loads(actions[i]["arguments"])
            key = rng.choice(sorted(args))
            if isinstance(args[key], str):
                args[key] = args[key].upper() if rng.random() < 0.5 else args[key].lower()
            actions[i]["arguments"] = json.dumps(args)
            return actions
        if m == 5:
            args = json.loads(actions[i]["arguments"])
            key = rng.choice(sorted(args))
            if isinstance(args[key], str) and args[key].isdigit():
                args[key] = int(args[key])
            actions[i]["arguments"] = json.dumps(args)
            return actions
        if m == 6:
            actions[i] = one()
            return actions
        return actions

    pairs = []
    for _ in range(count):
        gt = [one() for _ in range(rng.randrange(1, 4))]
        pairs.append((gt, mutate(gt)))
    return pairs


def timestamp_ok(value):
    try:
        pd.Timestamp(value)
        return True
    except ValueError:
        return False


out = {
    "pandas": pd.__version__,
    "sequences": [{"actions": s, "outputs": run_sequence(s), "state": state_after(s)} for s in SEQUENCES],
    "pairs": [],
    "timestamps": [{"value": v, "parses": timestamp_ok(v)} for v in TIMESTAMPS],
}
for key, predicted in PAIRS:
    with contextlib.redirect_stdout(io.StringIO()):
        out["pairs"].append({"ground_truth": GT[key], "predicted": predicted, "correct": bool(utils.is_correct(predicted, GT[key], None))})
out["random_pairs"] = []
for gt, predicted in random_pairs():
    with contextlib.redirect_stdout(io.StringIO()):
        out["random_pairs"].append({"ground_truth": gt, "predicted": predicted, "correct": bool(utils.is_correct(predicted, gt, None))})
with open(sys.argv[2], "w") as f:
    json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
    f.write("\n")
print("wrote", sys.argv[2], len(out["sequences"]), "sequences", len(out["pairs"]), "pairs", len(out["timestamps"]), "timestamps")
