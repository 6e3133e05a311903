import type { TokenView } from "../../store/tokens.js";
import { planHasApiAccess, SCOPES, type Organization } from "../../model/records.js";
import { CsrfField, Layout, Time, type PageContext } from "./layout.js";

/**
 * The pages of §5.2, §5.5 and §5.7: the list and usage view, the token shown once, the revoke
 * confirmation. The new-token form of §5.3 is in new-token-page.tsx.
 */

export const TOKENS_PATH = "/settings/api-tokens";
export const NEW_TOKEN_PATH = `${TOKENS_PATH}/new`;
export const CREATED_PATH = `${TOKENS_PATH}/created`;
export const ORGANIZATION_PATH = "/settings/organization";
export const revokePath = (id: string): string => `${TOKENS_PATH}/${encodeURIComponent(id)}/revoke`;

function OrganizationPicker(props: {
  context: PageContext;
  organizations: readonly Organization[];
  selected: Organization | undefined;
}) {
  const { context, organizations, selected } = props;
  return (
    <form method="post" action={ORGANIZATION_PATH} class="organization-picker">
      <CsrfField token={context.csrfToken} />
      <label for="organization">Organization</label>
      <select id="organization" name="organization" required>
        {selected === undefined ? (
          <option value="" disabled selected>
            Choose an organization
          </option>
        ) : null}
        {organizations.map((o) => (
          <option value={o.id} selected={o.id === selected?.id}>
            {`${o.name} (${o.id})`}
          </option>
        ))}
      </select>
      <button type="submit">{selected === undefined ? "Sign in" : "Switch"}</button>
    </form>
  );
}

function Scopes({ scopes }: { scopes: readonly string[] }) {
  if (scopes.length === 0) return <span class="muted">none</span>;
  if (SCOPES.every((s) => scopes.includes(s))) {
    return (
      <span class="scope-all" title={scopes.join(" ")}>
        all scopes
      </span>
    );
  }
  return (
    <ul class="scope-list">
      {scopes.map((s) => (
        <li>
          <code>{s}</code>
        </li>
      ))}
    </ul>
  );
}

function NoExpiry() {
  return <span class="muted">never</span>;
}

function Status({ status }: { status: TokenView["status"] }) {
  return <span class={`status status-${status.toLowerCase()}`}>{status}</span>;
}

function TokenRow({ token }: { token: TokenView }) {
  return (
    <tr data-token-id={token.id}>
      <th scope="row" data-label="Name">
        <div>
          <span class="token-name">{token.name}</span>
          <code class="token-hint">{token.hint}</code>
        </div>
      </th>
      <td data-label="Scopes">
        <Scopes scopes={token.scopes} />
      </td>
      <td data-label="Created">
        <Time instant={token.createdAt} />
      </td>
      <td data-label="Expires">
        {token.expiresAt === null ? <NoExpiry /> : <Time instant={token.expiresAt} />}
      </td>
      <td data-label="Last used">
        {token.lastUsedAt === null ? <span class="muted">never</span> : <Time instant={token.lastUsedAt} />}
      </td>
      <td data-label="Requests" class="number">
        {token.requestCount}
      </td>
      <td data-label="Status">
        <Status status={token.status} />
      </td>
      <td data-label="Actions">
        {token.status === "Active" ? (
          <a
            class="button danger"
            href={revokePath(token.id)}
            data-revoke={token.name}
            aria-label={`Revoke ${token.name}`}
          >
            Revoke
          </a>
        ) : null}
      </td>
    </tr>
  );
}

export interface TokenListModel {
  organizations: readonly Organization[];
  selected: Organization | undefined;
  tokens: readonly TokenView[];
}

export function TokenListPage(props: { context: PageContext; model: TokenListModel }) {
  const { context, model } = props;
  const { selected, tokens } = model;
  return (
    <Layout title="API tokens" context={context} section="tokens">
      <h1>API tokens</h1>
      <p>
        A token lets a program use the API for one organization, within the scopes ticked when it was created
        (§5). The reference has no users: the organization chosen here is the one you are signed in as, and a
        cookie remembers it.
      </p>
      <OrganizationPicker context={context} organizations={model.organizations} selected={selected} />
      {selected === undefined ? null : (
        <section aria-labelledby="tokens-title">
          <div class="section-head">
            <h2 id="tokens-title">{`Tokens of ${selected.name}`}</h2>
            <a class="button primary" href={NEW_TOKEN_PATH}>
              New token
            </a>
          </div>
          {planHasApiAccess(selected.plan) ? null : (
            <p class="warning">
              {`This organization is on the ${selected.plan} plan, which has no API access: its tokens get 403 forbidden on every endpoint.`}
            </p>
          )}
          {tokens.length === 0 ? (
            <p>This organization has no tokens yet.</p>
          ) : (
            <div class="table-wrap">
              <table class="tokens">
                <caption>
                  Newest first. Usage counts every request made with the token while it was active.
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Created</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Requests</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {tokens.map((t) => (
                    <TokenRow token={t} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </Layout>
  );
}

function TokenFacts({ token, organization }: { token: TokenView; organization: Organization }) {
  return (
    <dl class="facts">
      <dt>Name</dt>
      <dd>{token.name}</dd>
      <dt>Organization</dt>
      <dd>{organization.name}</dd>
      <dt>Scopes</dt>
      <dd>
        <Scopes scopes={token.scopes} />
      </dd>
      <dt>Expires</dt>
      <dd>{token.expiresAt === null ? <NoExpiry /> : <Time instant={token.expiresAt} />}</dd>
      <dt>Status</dt>
      <dd>
        <Status status={token.status} />
      </dd>
    </dl>
  );
}

function BackToTokens() {
  return (
    <p>
      <a class="button" href={TOKENS_PATH}>
        Back to API tokens
      </a>
    </p>
  );
}

export function CreatedTokenPage(props: {
  context: PageContext;
  organization: Organization;
  token: TokenView;
  secret: string;
}) {
  const { context, organization, token, secret } = props;
  return (
    <Layout title="Token created" context={context} section="tokens">
      <h1>Token created</h1>
      <section class="secret-box" aria-labelledby="secret-title">
        <h2 id="secret-title">{`Your new token “${token.name}”`}</h2>
        <p class="warning" id="secret-warning">
          <strong>Copy it now: it will not be shown again.</strong> Keep it in an environment variable or a
          secrets manager. If you lose it, revoke it and create a new one.
        </p>
        <div class="secret">
          <code id="new-token" aria-describedby="secret-warning">
            {secret}
          </code>
          <button type="button" data-copy-target="new-token" data-copy-status="copy-status" hidden>
            Copy token
          </button>
        </div>
        <p id="copy-status" class="copy-status" role="status" />
      </section>
      <TokenFacts token={token} organization={organization} />
      <BackToTokens />
    </Layout>
  );
}

export function RevokePage(props: { context: PageContext; organization: Organization; token: TokenView }) {
  const { context, organization, token } = props;
  const active = token.status === "Active";
  return (
    <Layout title={`Revoke ${token.name}`} context={context} section="tokens">
      <h1>{active ? `Revoke “${token.name}”?` : `“${token.name}” is ${token.status}`}</h1>
      {active ? (
        <p>
          Every API request with this token will get 401 unauthorized at once. Revoking cannot be undone: to
          give the integration access again, create a new token.
        </p>
      ) : (
        <p>Only an active token can be revoked; this one already gets 401 unauthorized.</p>
      )}
      <TokenFacts token={token} organization={organization} />
      {active ? (
        <form method="post" action={revokePath(token.id)} class="actions">
          <CsrfField token={context.csrfToken} />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" class="danger">
            Revoke token
          </button>
          <a href={TOKENS_PATH}>Cancel</a>
        </form>
      ) : (
        <BackToTokens />
      )}
    </Layout>
  );
}
