// The project-management toolkit, matched to NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/workplace_assistant/workplace_assistant_tools/project_management.py: tasks read
// from csv_data/project_tasks.csv; created tasks appended (index renumbered), deleted ones dropped.
import { appendRow, column, dropWhere, maxOf, records, setWhere, type Frame } from "./frame.js";
import { bind, type Kwargs } from "./kwargs.js";
import { pyEq, pyIn, pyInt, pyLower, truthy, zfill } from "./py.js";
import { containsPattern } from "./regex.js";

const LISTS = ["Backlog", "In Progress", "In Review", "Completed"];
const BOARDS = ["Back end", "Front end", "Design"];
const EMAIL = /^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}\n?$/;

export class ProjectManagementTool {
  constructor(public tasks: Frame) {}

  private assignees(): unknown[] {
    return column(this.tasks, "assigned_to_email").map((v) => (typeof v === "string" ? pyLower(v) : NaN));
  }

  get_task_information_by_id(kwargs: Kwargs): unknown {
    const { task_id, field } = bind("ProjectManagementTool.get_task_information_by_id", { task_id: null, field: null }, kwargs);
    if (!truthy(task_id)) return "Task ID not provided.";
    if (!truthy(field)) return "Field not provided.";
    const found = records(this.tasks).filter((r) => pyEq(r.task_id, task_id));
    if (!found.length) return "Task not found.";
    if (typeof field === "string" && field in found[0]!) return { [field]: found[0]![field] };
    return "Field not found.";
  }

  search_tasks(kwargs: Kwargs): unknown {
    const a = bind("ProjectManagementTool.search_tasks", { task_name: null, assigned_to_email: null, list_name: null, due_date: null, board: null }, kwargs);
    if (![a.task_name, a.assigned_to_email, a.list_name, a.due_date, a.board].some(truthy)) return "No search parameters provided.";
    if (truthy(a.assigned_to_email) && !EMAIL.test(String(a.assigned_to_email))) return "Invalid email format for assigned_to_email.";
    let rows = records(this.tasks);
    const by = (name: string, arg: unknown) => {
      if (!truthy(arg)) return;
      const matches = containsPattern(arg);
      // A missing cell gives NaN in the mask, which pandas refuses as a boolean indexer.
      rows = rows.filter((r) => {
        const hit = matches(r[name]);
        if (hit === undefined) throw new Error("ValueError: Cannot mask with non-boolean array containing NA / NaN values");
        return hit;
      });
    };
    by("task_name", a.task_name);
    if (truthy(a.assigned_to_email)) rows = rows.filter((r) => typeof r.assigned_to_email === "string" && pyLower(r.assigned_to_email) === pyLower(a.assigned_to_email));
    by("list_name", a.list_name);
    by("due_date", a.due_date);
    by("board", a.board);
    return rows;
  }

  create_task(kwargs: Kwargs): string {
    const { task_name, assigned_to_email, list_name, due_date, board } = bind("ProjectManagementTool.create_task", { task_name: null, assigned_to_email: null, list_name: null, due_date: null, board: null }, kwargs);
    if (![task_name, assigned_to_email, list_name, due_date, board].every(truthy)) return "Missing task details.";
    const email = pyLower(assigned_to_email);
    if (!this.assignees().some((v) => pyEq(v, email))) return "Assignee email not valid. Please choose from the list of team members.";
    if (!pyIn(list_name, LISTS)) return "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'.";
    if (!pyIn(board, BOARDS)) return "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'.";
    const id = zfill(String(pyInt(maxOf(this.tasks, "task_id")) + 1), 8);
    this.tasks = appendRow(this.tasks, { task_id: id, task_name, assigned_to_email: email, list_name, due_date, board }, true);
    return id;
  }

  delete_task(kwargs: Kwargs): string {
    const { task_id } = bind("ProjectManagementTool.delete_task", { task_id: null }, kwargs);
    if (!truthy(task_id)) return "Task ID not provided.";
    if (!column(this.tasks, "task_id").some((v) => pyEq(v, task_id))) return "Task not found.";
    this.tasks = dropWhere(this.tasks, "task_id", task_id);
    return "Task deleted successfully.";
  }

  update_task(kwargs: Kwargs): string {
    const { task_id, field, new_value: raw } = bind("ProjectManagementTool.update_task", { task_id: null, field: null, new_value: null }, kwargs);
    if (!truthy(task_id) || !truthy(field) || !truthy(raw)) return "Task ID, field, or new value not provided.";
    const value = field === "assigned_to_email" ? pyLower(raw) : raw;
    if (field === "board" && !pyIn(value, BOARDS)) return "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'.";
    if (field === "list_name" && !pyIn(value, LISTS)) return "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'.";
    if (field === "assigned_to_email" && !this.assignees().some((v) => pyEq(v, value))) return "Assignee email not valid. Please choose from the list of team members.";
    if (!column(this.tasks, "task_id").some((v) => pyEq(v, task_id))) return "Task not found.";
    if (typeof field !== "string" || !this.tasks.columns.includes(field)) return "Field not valid.";
    setWhere(this.tasks, "task_id", task_id, field, value);
    return "Task updated successfully.";
  }
}
