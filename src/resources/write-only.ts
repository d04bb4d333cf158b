// Write-only secrets (a hog function's secret inputs): the API never reads them back, so a plan
// cannot see whether one changed. By default a stored secret stays as it is; `--resend-secrets`
// (plan and apply) sends every declared one again, for a rotation. Set once per run by the CLI.
let resend = false;

export function setResendSecrets(on: boolean): void {
  resend = on;
}

export function resendSecrets(): boolean {
  return resend;
}
