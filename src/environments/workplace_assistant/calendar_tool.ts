// The calendar toolkit, matched to NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/workplace_assistant/workplace_assistant_tools/calendar.py: events read from
// csv_data/calendar_events.csv. A created event is concatenated without `ignore_index`, so its row
// label is 0; event_start must be something `pd.Timestamp` accepts and duration a positive `int()`.
import { appendRow, column, dropWhere, maxOf, records, setWhere, type Frame } from "./frame.js";
import { bind, type Kwargs } from "./kwargs.js";
import { paginate } from "./email.js";
import { PyError, isValueError, pyEq, pyIn, pyInt, pyLower, pyStr, truthy, zfill } from "./py.js";
import { containsPattern } from "./regex.js";
import { timestampOf } from "./timestamp.js";

const INFO_FIELDS = ["event_id", "event_name", "participant_email", "event_start", "duration"];
const UPDATE_FIELDS = ["event_name", "participant_email", "event_start", "duration"];

const validId = (id: unknown) => typeof id === "string" && /^[0-9]{8}$/.test(id);

/** `pd.Timestamp(value)` accepted (true), rejected with ValueError (false); other errors propagate. */
function parses(value: unknown): boolean {
  try {
    timestampOf(value);
    return true;
  } catch (error) {
    if (typeof value !== "string" && typeof value !== "number") throw new PyError(`TypeError: Cannot convert input [${pyStr(value)}] of type ${typeof value} to Timestamp`);
    if (isValueError(error)) return false;
    throw error;
  }
}

/** The duration check: undefined when valid, else the tool's message. */
function durationProblem(value: unknown): string | undefined {
  try {
    if (pyInt(value) <= 0) return "Duration must be a positive number of minutes.";
    return undefined;
  } catch (error) {
    if (isValueError(error)) return "Invalid duration format. Expected a number of minutes.";
    throw error;
  }
}

export class CalendarTool {
  constructor(public events: Frame) {}

  private has(id: unknown) {
    return column(this.events, "event_id").some((v) => pyEq(v, id));
  }

  get_event_information_by_id(kwargs: Kwargs): unknown {
    const { event_id, field } = bind("CalendarTool.get_event_information_by_id", { event_id: null, field: null }, kwargs);
    if (!truthy(event_id)) return "Event ID not provided.";
    if (!truthy(field)) return "Field not provided.";
    if (!validId(event_id)) return "Invalid event ID format. Expected 8-digit ID.";
    if (!pyIn(field, INFO_FIELDS)) return `Invalid field. Available fields are: ${INFO_FIELDS.join(", ")}`;
    const found = records(this.events).filter((r) => pyEq(r.event_id, event_id));
    if (!found.length) return "Event not found.";
    return { [field as string]: found[0]![field as string] };
  }

  search_events(kwargs: Kwargs): unknown {
    const { query, time_min, time_max, page, page_size } = bind("CalendarTool.search_events", { query: "", time_min: null, time_max: null, page: 1, page_size: 5 }, kwargs);
    let min: number | undefined;
    let max: number | undefined;
    if (truthy(time_min)) {
      if (!parses(time_min)) return "Invalid time_min format. Expected YYYY-MM-DD HH:MM:SS.";
      min = timestampOf(time_min);
    }
    if (truthy(time_max)) {
      if (!parses(time_max)) return "Invalid time_max format. Expected YYYY-MM-DD HH:MM:SS.";
      max = timestampOf(time_max);
    }
    const matches = containsPattern(query);
    let found = records(this.events).filter((r) => matches(r.event_name) === true || matches(r.participant_email) === true);
    if (min !== undefined) found = found.filter((r) => timestampOf(r.event_start) >= min!);
    if (max !== undefined) found = found.filter((r) => timestampOf(r.event_start) <= max!);
    if (!found.length) return "No events found.";
    // Python's list.sort is stable: ties keep table order.
    found = found.map((r, i) => ({ r, i, t: timestampOf(r.event_start) })).sort((a, b) => b.t - a.t || a.i - b.i).map((x) => x.r);
    return paginate(found, "events", "total_events", page, page_size);
  }

  create_event(kwargs: Kwargs): string {
    const { event_name, participant_email, event_start, duration } = bind("CalendarTool.create_event", { event_name: null, participant_email: null, event_start: null, duration: null }, kwargs);
    if (!truthy(event_name)) return "Event name not provided.";
    if (!truthy(participant_email)) return "Participant email not provided.";
    if (!truthy(event_start)) return "Event start not provided.";
    if (!truthy(duration)) return "Event duration not provided.";
    if (!parses(event_start)) return "Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS.";
    const problem = durationProblem(duration);
    if (problem) return problem;
    const email = pyLower(participant_email);
    const id = zfill(String(pyInt(maxOf(this.events, "event_id")) + 1), 8);
    this.events = appendRow(this.events, { event_id: id, event_name, participant_email: email, event_start, duration }, false);
    return id;
  }

  delete_event(kwargs: Kwargs): string {
    const { event_id } = bind("CalendarTool.delete_event", { event_id: null }, kwargs);
    if (!truthy(event_id)) return "Event ID not provided.";
    if (!validId(event_id)) return "Invalid event ID format. Expected 8-digit ID.";
    if (!this.has(event_id)) return "Event not found.";
    this.events = dropWhere(this.events, "event_id", event_id);
    return "Event deleted successfully.";
  }

  update_event(kwargs: Kwargs): string {
    const { event_id, field, new_value } = bind("CalendarTool.update_event", { event_id: null, field: null, new_value: null }, kwargs);
    if (!truthy(event_id) || !truthy(field) || !truthy(new_value)) return "Event ID, field, or new value not provided.";
    if (!validId(event_id)) return "Invalid event ID format. Expected 8-digit ID.";
    if (!pyIn(field, UPDATE_FIELDS)) return `Invalid field. Available fields are: ${UPDATE_FIELDS.join(", ")}`;
    if (field === "event_start") {
      if (!parses(new_value)) return "Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS.";
    } else if (field === "duration") {
      const problem = durationProblem(new_value);
      if (problem) return problem;
    }
    if (!this.has(event_id)) return "Event not found.";
    const value = field === "participant_email" ? pyLower(new_value) : new_value;
    setWhere(this.events, "event_id", event_id, field as string, value);
    return "Event updated successfully.";
  }
}
