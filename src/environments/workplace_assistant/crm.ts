// The customer-relationship-manager toolkit, matched to NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/workplace_assistant/workplace_assistant_tools/customer_relationship_manager.py:
// customers read from csv_data/customer_relationship_manager_data.csv; added ones appended (index
// renumbered, absent fields None), deleted ones dropped.
import { appendRow, column, dropWhere, maxOf, records, setWhere, type Frame } from "./frame.js";
import { bind, type Kwargs } from "./kwargs.js";
import { paginate } from "./email.js";
import { PyError, pyEq, pyIn, pyInt, pyLower, truthy, zfill } from "./py.js";
import { containsPattern } from "./regex.js";

const STATUSES = ["Qualified", "Won", "Lost", "Lead", "Proposal"];
const PRODUCTS = ["Software", "Hardware", "Services", "Consulting", "Training"];

/** Python `a >= b` / `a <= b` between a cell and an argument (a missing cell compares false). */
function cmp(a: unknown, b: unknown, op: ">=" | "<="): boolean {
  if (typeof a === "number" && Number.isNaN(a)) return false;
  if (typeof a !== "string" || typeof b !== "string") throw new PyError(`TypeError: '${op}' not supported between instances of '${typeof a}' and '${typeof b}'`);
  return op === ">=" ? a >= b : a <= b;
}

export class CrmTool {
  constructor(public customers: Frame) {}

  search_customers(kwargs: Kwargs): unknown {
    const a = bind(
      "CustomerRelationshipManagerTool.search_customers",
      { customer_name: null, customer_email: null, product_interest: null, status: null, assigned_to_email: null, last_contact_date_min: null, last_contact_date_max: null, follow_up_by_min: null, follow_up_by_max: null, page: 1, page_size: 5 },
      kwargs,
    );
    const filters = ["customer_name", "customer_email", "product_interest", "status", "assigned_to_email", "last_contact_date_min", "last_contact_date_max", "follow_up_by_min", "follow_up_by_max"];
    if (!filters.some((k) => truthy(a[k]))) return "No search parameters provided. Please provide at least one parameter.";
    let rows = records(this.customers);
    for (const name of ["customer_name", "customer_email", "product_interest", "status", "assigned_to_email"]) {
      if (!truthy(a[name])) continue;
      const matches = containsPattern(a[name]);
      rows = rows.filter((r) => {
        const hit = matches(r[name]);
        if (hit === undefined) throw new Error("ValueError: Cannot mask with non-boolean array containing NA / NaN values");
        return hit;
      });
    }
    if (truthy(a.last_contact_date_min)) rows = rows.filter((r) => cmp(r.last_contact_date, a.last_contact_date_min, ">="));
    if (truthy(a.last_contact_date_max)) rows = rows.filter((r) => cmp(r.last_contact_date, a.last_contact_date_max, "<="));
    if (truthy(a.follow_up_by_min)) rows = rows.filter((r) => cmp(r.follow_up_by, a.follow_up_by_min, ">="));
    if (truthy(a.follow_up_by_max)) rows = rows.filter((r) => cmp(r.follow_up_by, a.follow_up_by_max, "<="));
    return paginate(rows, "customers", "total_customers", a.page, a.page_size) ?? "No customers found.";
  }

  update_customer(kwargs: Kwargs): string {
    const { customer_id, field, new_value } = bind("CustomerRelationshipManagerTool.update_customer", { customer_id: null, field: null, new_value: null }, kwargs);
    if (!truthy(customer_id) || !truthy(field) || !truthy(new_value)) return "Customer ID, field, or new value not provided.";
    if (field === "status" && !pyIn(new_value, STATUSES)) return "Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'";
    if (field === "product_interest" && !pyIn(new_value, PRODUCTS))
      return "Product interest not valid. Please choose from: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'";
    const value = field === "customer_email" || field === "assigned_to_email" ? pyLower(new_value) : new_value;
    if (column(this.customers, "customer_id").some((v) => pyEq(v, customer_id))) {
      if (typeof field === "string" && this.customers.columns.includes(field)) {
        setWhere(this.customers, "customer_id", customer_id, field, value);
        return "Customer updated successfully.";
      }
      return "Field not valid. Please choose from: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'";
    }
    return "Customer not found.";
  }

  add_customer(kwargs: Kwargs): string {
    const a = bind(
      "CustomerRelationshipManagerTool.add_customer",
      { customer_name: null, assigned_to_email: null, status: null, customer_email: null, customer_phone: null, last_contact_date: null, product_interest: null, notes: "", follow_up_by: null },
      kwargs,
    );
    if (![a.customer_name, a.assigned_to_email, a.status].every(truthy)) return "Please provide all required fields: customer_name, assigned_to_email, status.";
    const assigned = pyLower(a.assigned_to_email);
    const email = truthy(a.customer_email) ? pyLower(a.customer_email) : a.customer_email;
    const id = zfill(String(pyInt(maxOf(this.customers, "customer_id")) + 1), 8);
    this.customers = appendRow(
      this.customers,
      {
        customer_id: id,
        customer_name: a.customer_name,
        customer_email: email,
        customer_phone: a.customer_phone,
        last_contact_date: a.last_contact_date,
        product_interest: a.product_interest,
        status: a.status,
        assigned_to_email: assigned,
        notes: a.notes,
        follow_up_by: a.follow_up_by,
      },
      true,
    );
    return id;
  }

  delete_customer(kwargs: Kwargs): string {
    const { customer_id } = bind("CustomerRelationshipManagerTool.delete_customer", { customer_id: null }, kwargs);
    if (!truthy(customer_id)) return "Customer ID not provided.";
    if (!column(this.customers, "customer_id").some((v) => pyEq(v, customer_id))) return "Customer not found.";
    this.customers = dropWhere(this.customers, "customer_id", customer_id);
    return "Customer deleted successfully.";
  }
}

/** The company directory (csv_data/email_addresses.csv), matched to NeMo Gym 07d6b0d company_directory.py. */
export function findEmailAddress(addresses: readonly unknown[], kwargs: Kwargs): unknown {
  const { name } = bind("CompanyDirectoryTool.find_email_address", { name: "" }, kwargs);
  if (name === "") return "Name not provided.";
  const matches = containsPattern(pyLower(name));
  return addresses.filter((a) => {
    const hit = matches(a);
    if (hit === undefined) throw new Error("ValueError: Cannot mask with non-boolean array containing NA / NaN values");
    return hit;
  });
}

