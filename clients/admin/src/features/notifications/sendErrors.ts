/** The send form's fields. */
export type SendField = 'recipient' | 'title' | 'body' | 'url' | 'send_at' | 'local_time';

/**
 * The API's 422 errors (keys are request paths, docs/api.md#errors) placed on the form's fields:
 * `recipients.user_ids.0` on the recipient, `notification.action_url` on the URL, `send_at` and
 * `options.local_time` on the schedule's fields. What fits no
 * field is shown above the form.
 */
export function fieldErrors(errors: Record<string, string[]>): { fields: Partial<Record<SendField, string[]>>; other: string[] } {
  const fields: Partial<Record<SendField, string[]>> = {};
  const other: string[] = [];
  for (const [path, messages] of Object.entries(errors)) {
    const field: SendField | null = path.startsWith('recipients')
      ? 'recipient'
      : path === 'notification.title'
        ? 'title'
        : path === 'notification.body'
          ? 'body'
          : path === 'notification.action_url'
            ? 'url'
            : path === 'send_at'
              ? 'send_at'
              : path === 'options.local_time'
                ? 'local_time'
                : null;
    if (field) (fields[field] ??= []).push(...messages);
    else other.push(...messages);
  }
  return { fields, other };
}
