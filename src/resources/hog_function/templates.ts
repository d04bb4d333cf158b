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

/**
 * Templates the API has and hogsync does not carry (well over a hundred): the sandbox serves
 * these besides TEMPLATES, so that reading a template's schema from the API is met in tests.
 */
export const SANDBOX_ONLY_TEMPLATES: readonly HogTemplate[] = [
  {
    // posthog/cdp/templates/customerio/template_customerio.py: token is a secret input
    id: 'template-customerio', name: 'Customer.io', type: 'destination', status: 'beta',
    hog: "let res := fetch(f'https://{inputs.host}/api/v2/entity', {'headers': {'Authorization': f'Basic {base64Encode(f'{inputs.site_id}:{inputs.token}')}'}});",
    inputs_schema: [
      { key: 'site_id', type: 'string', required: true, secret: false },
      { key: 'token', type: 'string', required: true, secret: true },
      { key: 'host', type: 'choice', required: true, secret: false, default: 'track.customer.io', choices: ['track.customer.io', 'track-eu.customer.io'].map((v) => ({ label: v, value: v })) },
      { key: 'identifiers', type: 'dictionary', required: true, secret: false, default: { email: '{person.properties.email}' } },
      { key: 'include_all_properties', type: 'boolean', required: false, secret: false, default: true },
      { key: 'attributes', type: 'dictionary', required: false, secret: false },
    ],
  },
];

/** Templates read from the API in this run (GET …/hog_function_templates/{id}/), by id. */
const learned = new Map<string, HogTemplate>();

/** Keeps a template the API answered, so that validation, masking and comparing know its inputs. */
export function learnTemplate(template: HogTemplate): void {
  learned.set(template.id, template);
}

/** A template hogsync carries, else one the API answered in this run. */
export function templateById(id: unknown): HogTemplate | undefined {
  if (typeof id !== 'string') return undefined;
  return TEMPLATES.find((t) => t.id === id) ?? learned.get(id);
}
