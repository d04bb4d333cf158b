// Types of scripts/github-action.js, for the tests that import it.
export declare const MARKER: string;
export declare function splitArgs(text: string): string[];
export declare function splitPaths(text: string | undefined): string[];
export declare function upsertComment(env: Record<string, string | undefined>, number: number, body: string): Promise<'created' | 'updated'>;
export declare function runAction(env: Record<string, string | undefined>, log?: (line: string) => void, echo?: (stream: 'stdout' | 'stderr', text: string) => void): Promise<number>;
