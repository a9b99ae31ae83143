/** Errors the command reports as one line (`blogcore: …`) and exit code 1; UsageError also prints the usage (exit 2). */
export class CliError extends Error {
  override name = 'CliError';
}

export class UsageError extends Error {
  override name = 'UsageError';
}
