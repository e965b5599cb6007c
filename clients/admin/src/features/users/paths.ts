/** A user's page in the dashboard (features/users/UserPage.tsx). */
export const userPath = (appId: string, userId: string) => `/apps/${appId}/users/${encodeURIComponent(userId)}`;
