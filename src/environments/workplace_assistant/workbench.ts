// One workplace sandbox (NVIDIA-NeMo/Gym 07d6b0d resources_servers/workplace_assistant/utils.py):
// the 27 tools over fresh copies of the six CSV tables, and the reward — run the predicted calls on one
// fresh sandbox and the ground-truth calls on another (a call that raises is skipped), lower-case the
// string cells of the five mutable tables (but status, list_name, board) and require every pair equal
// by `DataFrame.equals`.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AnalyticsTool } from "./analytics.js";
import { CalendarTool } from "./calendar_tool.js";
import { CrmTool, findEmailAddress } from "./crm.js";
import { EmailTool } from "./email.js";
import { column, copyFrame, framesEqual, lowercased, readCsv, type Frame } from "./frame.js";
import type { Kwargs } from "./kwargs.js";
import { PyError, pyStr } from "./py.js";
import { ProjectManagementTool } from "./project_management.js";

// The CSVs live in the source folder; this module runs from src/ (tests) or dist/ (the CLI), both three levels down.
const CSV_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "src", "environments", "workplace_assistant", "csv_data");

interface Tables {
  emails: Frame;
  events: Frame;
  visits: Frame;
  tasks: Frame;
  customers: Frame;
  addresses: unknown[];
}

let loaded: Tables | undefined;
function tables(): Tables {
  loaded ??= {
    emails: readCsv(join(CSV_DIR, "emails.csv")),
    events: readCsv(join(CSV_DIR, "calendar_events.csv")),
    visits: readCsv(join(CSV_DIR, "analytics_data.csv")),
    tasks: readCsv(join(CSV_DIR, "project_tasks.csv")),
    customers: readCsv(join(CSV_DIR, "customer_relationship_manager_data.csv")),
    addresses: column(readCsv(join(CSV_DIR, "email_addresses.csv"), ["email_address"]), "email_address"),
  };
  return loaded;
}

export class Workbench {
  readonly email: EmailTool;
  readonly calendar: CalendarTool;
  readonly analytics: AnalyticsTool;
  readonly projects: ProjectManagementTool;
  readonly crm: CrmTool;
  private readonly addresses: unknown[];
  readonly functions: Record<string, (kwargs: Kwargs) => unknown>;

  constructor() {
    const t = tables();
    this.email = new EmailTool(copyFrame(t.emails));
    this.calendar = new CalendarTool(copyFrame(t.events));
    this.analytics = new AnalyticsTool(t.visits, { columns: ["file_path"], index: [], rows: [] });
    this.projects = new ProjectManagementTool(copyFrame(t.tasks));
    this.crm = new CrmTool(copyFrame(t.customers));
    this.addresses = t.addresses;
    const e = this.email, c = this.calendar, a = this.analytics, p = this.projects, m = this.crm;
    this.functions = {
      company_directory_find_email_address: (k) => findEmailAddress(this.addresses, k),
      email_get_email_information_by_id: (k) => e.get_email_information_by_id(k),
      email_search_emails: (k) => e.search_emails(k),
      email_send_email: (k) => e.send_email(k),
      email_delete_email: (k) => e.delete_email(k),
      email_forward_email: (k) => e.forward_email(k),
      email_reply_email: (k) => e.reply_email(k),
      calendar_get_event_information_by_id: (k) => c.get_event_information_by_id(k),
      calendar_search_events: (k) => c.search_events(k),
      calendar_create_event: (k) => c.create_event(k),
      calendar_delete_event: (k) => c.delete_event(k),
      calendar_update_event: (k) => c.update_event(k),
      analytics_engaged_users_count: (k) => a.engaged_users_count(k),
      analytics_get_visitor_information_by_id: (k) => a.get_visitor_information_by_id(k),
      analytics_create_plot: (k) => a.create_plot(k),
      analytics_traffic_source_count: (k) => a.traffic_source_count(k),
      analytics_total_visits_count: (k) => a.total_visits_count(k),
      analytics_get_average_session_duration: (k) => a.get_average_session_duration(k),
      project_management_get_task_information_by_id: (k) => p.get_task_information_by_id(k),
      project_management_search_tasks: (k) => p.search_tasks(k),
      project_management_create_task: (k) => p.create_task(k),
      project_management_delete_task: (k) => p.delete_task(k),
      project_management_update_task: (k) => p.update_task(k),
      customer_relationship_manager_search_customers: (k) => m.search_customers(k),
      customer_relationship_manager_update_customer: (k) => m.update_customer(k),
      customer_relationship_manager_add_customer: (k) => m.add_customer(k),
      customer_relationship_manager_delete_customer: (k) => m.delete_customer(k),
    };
  }

  /** `tool_env["functions"][name](**kwargs)`: throws where Python raises (unknown tool → KeyError). */
  call(name: string, kwargs: Kwargs): unknown {
    const fn = Object.hasOwn(this.functions, name) ? this.functions[name] : undefined;
    if (!fn) throw new PyError(`KeyError: '${name}'`);
    return fn(kwargs);
  }

  /** The five tables the reward compares, lower-cased as NeMo Gym does. */
  comparedState(): Frame[] {
    return [this.calendar.events, this.email.emails, this.analytics.plots, this.projects.tasks, this.crm.customers].map(lowercased);
  }
}

/** Python `json.loads` of an action's arguments, as a keyword mapping, or an error (the action is skipped). */
function kwargsOf(action: unknown): Kwargs {
  if (action === null || typeof action !== "object" || Array.isArray(action)) throw new PyError("TypeError: string indices must be integers");
  const { name, arguments: args } = action as Record<string, unknown>;
  if (typeof args !== "string") throw new PyError("TypeError: the JSON object must be str");
  const parsed = JSON.parse(args) as unknown;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new PyError("TypeError: argument after ** must be a mapping");
  void name;
  return parsed as Kwargs;
}

/** `execute_actions_and_reset_state`: a fresh sandbox with every action run in order, failing ones skipped. */
export function executeActions(actions: unknown): Workbench {
  const bench = new Workbench();
  // A string ground truth is iterated character by character upstream; every step fails.
  const list = Array.isArray(actions) ? actions : [];
  for (const action of list) {
    try {
      const name = (action as Record<string, unknown>)?.name;
      if (typeof name !== "string") throw new PyError(`KeyError: ${pyStr(name)}`);
      bench.call(name, kwargsOf(action));
    } catch {
      continue;
    }
  }
  return bench;
}

/** `is_correct(predicted, ground_truth, None)`: both action lists leave the same compared state. */
export function isCorrect(predicted: unknown, groundTruth: unknown): boolean {
  const a = executeActions(predicted).comparedState();
  const b = executeActions(groundTruth).comparedState();
  return a.every((frame, i) => framesEqual(frame, b[i]!));
}
