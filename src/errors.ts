// The one error type of hogsync: a stable code, a one-line message a user can act on,
// and where it happened (a file position or an HTTP request). The CLI prints it without a stack.

export type ErrorCode =
  | 'config'        // a configuration file is invalid
  | 'usage'         // a command line is invalid
  | 'api'           // the API answered with an error
  | 'network'       // the API could not be reached
  | 'security'      // a request was refused to protect the key
  | 'stale_plan'    // a saved plan no longer matches
  | 'safety'        // apply refused by a safety rule
  | 'internal';

export interface FilePosition { file: string; line: number; col: number }
export interface RequestInfo { method: string; path: string; status?: number }

export class HogsyncError extends Error {
  readonly code: ErrorCode;
  readonly position?: FilePosition;
  readonly request?: RequestInfo;
  /** A network error where the API could not be reached at all (DNS, refused, TLS): nothing later will reach it either. */
  readonly unreachable: boolean;
  /** A network error's `host:port` (what could not be reached), so every line about it can name it. */
  readonly host?: string;

  constructor(code: ErrorCode, message: string, where: { position?: FilePosition; request?: RequestInfo; cause?: unknown; unreachable?: boolean; host?: string } = {}) {
    super(message, where.cause === undefined ? undefined : { cause: where.cause });
    this.name = 'HogsyncError';
    this.code = code;
    this.position = where.position;
    this.request = where.request;
    this.unreachable = where.unreachable === true;
    if (where.host !== undefined) this.host = where.host;
  }

  /** The one line the CLI prints: `file:line:col: message` or `METHOD /path → 404: message`. */
  format(): string {
    if (this.position) return `${this.position.file}:${this.position.line}:${this.position.col}: ${this.message}`;
    if (this.request) {
      const status = this.request.status === undefined ? '' : ` → ${this.request.status}`;
      return `${this.request.method} ${this.request.path}${status}: ${this.message}`;
    }
    return this.message;
  }
}

export function isHogsyncError(err: unknown): err is HogsyncError {
  return err instanceof HogsyncError;
}
