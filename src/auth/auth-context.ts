export interface AuthContext {
  tokenId: string;
  appId: string;
  abilities: string[];
}
