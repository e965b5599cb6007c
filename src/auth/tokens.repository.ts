import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../common/prepared-query';
import { ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** An `api_tokens` row as PostgreSQL returns it, without its hash. */
export interface TokenRow {
  id: string;
  app_id: string;
  name: string | null;
  abilities: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** What authentication needs of a token. */
export type TokenCheckRow = Pick<TokenRow, 'id' | 'app_id' | 'abilities' | 'expires_at' | 'revoked_at' | 'last_used_at'>;

const TOKEN_COLUMNS = 'id, app_id, name, abilities, created_at, expires_at, revoked_at, last_used_at';

/** The `api_tokens` table. Tokens are found by their SHA-256 hash; the secret is never stored. */
@Injectable()
@SqlFile('tokens.repository.sql')
export class TokensRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({ params: [{ appId: ID, name: null, tokenHash: 'hash', abilities: ['notifications:send'], expiresInDays: null }] })
  async insert(input: { appId: string; name: string | null; tokenHash: string; abilities: string[]; expiresInDays: number | null }): Promise<TokenRow> {
    const [row]: TokenRow[] = await this.db.query(
      `INSERT INTO api_tokens (app_id, name, token_hash, abilities, expires_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $5::int IS NULL THEN NULL ELSE now() + make_interval(days => $5::int) END)
       RETURNING ${TOKEN_COLUMNS}`,
      [input.appId, input.name, input.tokenHash, input.abilities, input.expiresInDays],
    );
    return row;
  }

  @GenerateSql({ params: [ID] })
  listByApp(appId: string): Promise<TokenRow[]> {
    return this.db.query(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE app_id = $1 ORDER BY created_at, id`, [appId]);
  }

  /** Revoking twice keeps the first revocation time. */
  @GenerateSql({ params: [ID] })
  async revoke(id: string): Promise<TokenRow | undefined> {
    const [rows]: [TokenRow[], number] = await this.db.query(
      `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING ${TOKEN_COLUMNS}`,
      [id],
    );
    return rows[0];
  }

  /** On every authenticated request: a named prepared statement. */
  @GenerateSql({ params: ['hash'] })
  async findByHash(tokenHash: string): Promise<TokenCheckRow | undefined> {
    const { rows } = await preparedQuery<TokenCheckRow>(
      this.db,
      'api_tokens_authenticate',
      `SELECT id, app_id, abilities, expires_at, revoked_at, last_used_at FROM api_tokens WHERE token_hash = $1`,
      [tokenHash],
    );
    return rows[0];
  }

  /** Records a use, unless another process recorded one within `resolutionMs`. */
  @GenerateSql({ params: [ID, 60_000] })
  async touchLastUsed(id: string, resolutionMs: number): Promise<void> {
    await this.db.query(
      `UPDATE api_tokens SET last_used_at = now()
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - make_interval(secs => $2))`,
      [id, resolutionMs / 1000],
    );
  }
}
