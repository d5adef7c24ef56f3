// Recognising "the prompt does not fit" among engine 400s. NeMo Gym turns exactly this error into
// an empty incomplete response instead of failing the rollout; the phrases are vLLM's (and
// OpenAI's, which uses the same first phrase on Chat Completions and a code on Responses).
const PATTERNS = [
  /maximum context length/i,
  /is longer than the maximum model length/i,
  /please reduce the length/i,
  /context_length_exceeded/,
  /exceeds the context window/i,
];

export function isContextLengthError(status: number, text: string): boolean {
  return status === 400 && PATTERNS.some((p) => p.test(text));
}
