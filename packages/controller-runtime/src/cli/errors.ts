// An error the CLI reports as one line and exit status 1, without a stack: the user's input was wrong.
export class CLIError extends Error {
  override readonly name = "CLIError";
}
