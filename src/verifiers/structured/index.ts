// Parsers of structured answers (JSON Schema-checked or path-checked) that behave as the Python
// libraries NeMo Gym's structured_outputs and structeval environments use.
export { pyDictReader, pyCsvRows, PyCsvError, type CsvDictRow } from "./python_csv.js";
export { pyInt, pyFloat } from "./python_numbers.js";
export { CSV_REST_KEY, nonStringKey, pyTemporal, pyTruthy } from "./python_values.js";
export { pyLegacyTomlLoads, pyTomlLoads } from "./pytoml.js";
export { pyYamlSafeLoad, PyYamlError } from "./pyyaml.js";
export { xmlToDict, XmlParseError } from "./xmltodict.js";
export { validateOpenApi31, SchemaValidationError } from "./openapi_schema.js";
export { decodeUnicodeEscape, UnicodeEscapeError } from "./unicode_escape.js";
export { pyMean, pyRound } from "./python_stats.js";
export { pyJsonLoads } from "./pyjson.js";
