/** Who is calling: set on the request by the bearer strategy. */
export interface AuthContext {
  tokenId: string;
  appId: string;
  abilities: string[];
}
