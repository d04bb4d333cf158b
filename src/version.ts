// The version printed by --version and sent in the User-Agent. Kept in step with package.json by a test.
export const VERSION = '0.1.0';
