/**
 * The gateway's validation messages name its fields as the API spells them (`token_id`) and keep the
 * validator's wording (`must NOT have fewer than 8 characters`). The dashboard shows them in the words of
 * its own forms.
 */

/** Each API field as the dashboard's forms label it. */
const LABELS: Record<string, string> = {
  email: 'Email',
  password: 'Password',
  url: 'URL',
  to: 'To',
  from: 'From',
  contractaddress: 'Token contract',
  token_id: 'Token id',
  type: 'Type',
  confirmations: 'Confirmations',
  retry: 'Retry',
  notify_pending: 'Unconfirmed notifications',
  notify_reverted: 'Reorg notifications',
  name: 'Name',
};

const PHRASES: [RegExp, string][] = [
  [/must NOT have fewer than (\d+) characters/g, 'must be at least $1 characters long'],
  [/must NOT have more than (\d+) characters/g, 'must be at most $1 characters long'],
  [/must NOT have fewer than (\d+) items/g, 'needs at least $1 entries'],
  [/must NOT have more than (\d+) items/g, 'takes at most $1 entries'],
  [/must be >= (\d+)/g, 'must be at least $1'],
  [/must be <= (\d+)/g, 'must be at most $1'],
  [/must match format "email"/g, 'must be an email address'],
  [/must match format "uri"/g, 'must be a URL'],
  [/must be equal to one of the allowed values/g, 'is not one of the choices'],
  [/must match pattern "[^"]*"/g, 'is not in the expected form'],
  [/must be integer/g, 'must be a whole number'],
];

/** A field's name in words: its form label, else the API name with spaces. */
export function fieldLabel(field: string): string {
  return LABELS[field] ?? field.replaceAll('_', ' ');
}

/** A gateway message in the dashboard's words. */
export function humanMessage(message: string): string {
  let text = message.replace(/\bThe ([a-z_]+) field\b/g, (_, field: string) => fieldLabel(field));
  for (const [pattern, words] of PHRASES) text = text.replace(pattern, words);
  // API field names left in a sentence ("one of from, to, contractaddress or token_id").
  text = text.replace(/\b(contractaddress|token_id|notify_pending|notify_reverted)\b/g, (field) =>
    fieldLabel(field).toLowerCase(),
  );
  return text;
}
