// Parsing the extracted document as NeMo Gym 07d6b0d structeval does: json.loads, yaml.safe_load,
// toml.loads, xmltodict.parse, or csv.DictReader (kept as its header and rows); a parse that
// raises, or a result Python finds falsy (`{}`, `[]`, `0`, `""`, None), scores render 0.
import { pyDictReader, pyJsonLoads, pyLegacyTomlLoads, pyTruthy, pyYamlSafeLoad, xmlToDict } from "../../verifiers/structured/index.js";

export interface Parsed {
  parsed: unknown;
  renderScore: number;
  errorType: string | null;
  errorMessage: string | null;
}

function parseAs(code: string, outputType: string): unknown {
  switch (outputType) {
    case "json":
      return pyJsonLoads(code);
    case "yaml":
      return pyYamlSafeLoad(code);
    case "toml":
      return pyLegacyTomlLoads(code);
    case "xml":
      return xmlToDict(code);
    case "csv": {
      const { fieldnames, rows } = pyDictReader(code);
      return { csv_headers: fieldnames, csv_rows: rows };
    }
    default:
      return undefined;
  }
}

export function parseContent(code: string, outputType: string): Parsed {
  if (!["json", "yaml", "toml", "xml", "csv"].includes(outputType)) {
    return { parsed: null, renderScore: 0, errorType: "unsupported_type", errorMessage: `Unsupported output type: ${outputType}` };
  }
  try {
    const parsed = parseAs(code, outputType);
    if (!pyTruthy(parsed)) return { parsed: null, renderScore: 0, errorType: "parse_error", errorMessage: "Parsed result is empty" };
    return { parsed, renderScore: 1, errorType: null, errorMessage: null };
  } catch (e) {
    const error = e as Error;
    return { parsed: null, renderScore: 0, errorType: "parse_error", errorMessage: `${error.name}: ${error.message.slice(0, 200)}` };
  }
}
