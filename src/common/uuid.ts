const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a UUID in its textual form (any version). Ids from a path or the CLI are
 * checked before they reach PostgreSQL, whose uuid cast would otherwise fail the statement.
 */
export const isUuid = (value: string): boolean => UUID.test(value);
