// The API's hog function templates that hogsync knows offline, as the API defines them (its
// public source, posthog/cdp/templates/<name>/template_<name>.py): id, type, status and
// inputs_schema, abridged to what validate and the sandbox need (the hog source is a stand-in).
// validate checks a function's declared inputs against its template's inputs_schema where the
// template is listed here; the sandbox serves the same templates.

export interface InputSchema {
  key: string;
  type: string;
  required?: boolean;
  secret?: boolean;
  default?: unknown;
  choices?: Array<{ label: string; value: unknown }>;
}

export interface HogTemplate {
  id: string;
  name: string;
  type: 'destination' | 'transformation' | 'site_destination' | 'site_app' | 'source_webhook';
  /** free: available without the data-pipelines add-on. */
  status: 'free' | 'beta' | 'alpha' | 'stable';
  hog: string;
  inputs_schema: InputSchema[];
}

export const TEMPLATES: readonly HogTemplate[] = [
  {
    // posthog/cdp/templates/webhook/template_webhook.py
    id: 'template-webhook', name: 'HTTP Webhook', type: 'destination', status: 'beta',
    hog: "let res := fetch(inputs.url, {'headers': inputs.headers, 'body': inputs.body, 'method': inputs.method});",
    inputs_schema: [
      { key: 'url', type: 'string', required: true, secret: false },
      { key: 'method', type: 'choice', required: false, secret: false, default: 'POST', choices: ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'].map((v) => ({ label: v, value: v })) },
      { key: 'body', type: 'json', required: false, secret: false, default: { event: '{event}', person: '{person}' } },
      { key: 'headers', type: 'dictionary', required: false, secret: false },
      { key: 'debug', type: 'boolean', required: false, secret: false, default: false },
    ],
  },
  {
    // posthog/cdp/templates/sendgrid/template_sendgrid.py: api_key is a secret input
    id: 'template-sendgrid', name: 'Update marketing contacts in Sendgrid', type: 'destination', status: 'alpha',
    hog: "let res := fetch('https://api.sendgrid.com/v3/marketing/contacts', {'method': 'PUT', 'headers': {'Authorization': f'Bearer {inputs.api_key}'}});",
    inputs_schema: [
      { key: 'api_key', type: 'string', required: true, secret: true },
      { key: 'email', type: 'string', required: true, secret: false, default: '{person.properties.email}' },
      { key: 'properties', type: 'dictionary', required: true, secret: false },
    ],
  },
  {
    // posthog/cdp/templates/slack/template_slack.py
    id: 'template-slack', name: 'Post a Slack message', type: 'destination', status: 'free',
    hog: "let res := fetch('https://slack.com/api/chat.postMessage', {'body': {'channel': inputs.channel, 'text': inputs.text}, 'method': 'POST'});",
    inputs_schema: [
      { key: 'slack_workspace', type: 'integration', required: true, secret: false },
      { key: 'channel', type: 'integration_field', required: true, secret: false },
      { key: 'icon_emoji', type: 'string', required: false, secret: false, default: ':hedgehog:' },
      { key: 'username', type: 'string', required: false, secret: false, default: 'PostHog' },
      { key: 'blocks', type: 'json', required: false, secret: false },
      { key: 'text', type: 'string', required: false, secret: false, default: '*{person.name}* triggered event: \'{event.event}\'' },
    ],
  },
  {
    // posthog/cdp/templates/geoip/template_geoip.py: a transformation without inputs
    id: 'template-geoip', name: 'GeoIP', type: 'transformation', status: 'free',
    hog: 'return event',
    inputs_schema: [],
  },
  {
    // posthog/cdp/templates/ip_anonymization/template_ip_anonymization.py
    id: 'template-ip-anonymization', name: 'IP Anonymization', type: 'transformation', status: 'free',
    hog: 'return event',
    inputs_schema: [],
  },
];

export function templateById(id: unknown): HogTemplate | undefined {
  return typeof id === 'string' ? TEMPLATES.find((t) => t.id === id) : undefined;
}
