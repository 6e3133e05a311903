import { planHasApiAccess, type Organization } from "../../model/records.js";
import { Layout, type PageContext } from "./layout.js";
import { NEW_TOKEN_PATH, TOKENS_PATH } from "./token-pages.js";

export function LandingPage(props: {
  context: PageContext;
  baseUrl: string;
  organizations: readonly Organization[];
  tokenPrefix: string;
  control: boolean;
}) {
  const { context, baseUrl, organizations, tokenPrefix, control } = props;
  return (
    <Layout title="Home" context={context} section="home">
      <h1>Accounting API reference server</h1>
      <p>
        A local fake of the accounting service's public REST API, as strict as its specification, over
        in-memory fixtures. It also serves the web interface where API tokens are created and revoked.
      </p>

      <h2>Base URL</h2>
      <p>
        <code>{baseUrl}</code>: every endpoint starts with <code>/api/v1</code>, e.g.{" "}
        <code>{`${baseUrl}/api/v1/contacts`}</code>.
      </p>

      <h2>Organizations</h2>
      <div class="table-wrap">
        <table class="organizations">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id</th>
              <th scope="col">Plan</th>
              <th scope="col">API access</th>
            </tr>
          </thead>
          <tbody>
            {organizations.map((o) => (
              <tr>
                <th scope="row" data-label="Name">
                  {o.name}
                </th>
                <td data-label="Id">
                  <code>{o.id}</code>
                </td>
                <td data-label="Plan">{o.plan}</td>
                <td data-label="API access">
                  {planHasApiAccess(o.plan) ? "yes" : "no (403 on every endpoint)"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2>API tokens</h2>
      <ul>
        <li>
          <a href={TOKENS_PATH}>API tokens</a>: each organization's tokens, their usage and status; revoke one
          there.
        </li>
        <li>
          <a href={NEW_TOKEN_PATH}>New token</a>: a name, scopes and an optional expiry date; the token is
          shown once.
        </li>
      </ul>

      <h2>Documentation</h2>
      <p>
        <a href="/docs">The API documentation</a>, served by this server.
      </p>

      <h2>Quick start</h2>
      <ol>
        <li>
          Create a token under <a href={TOKENS_PATH}>API tokens</a>, or take a fixture token from the table{" "}
          <code>npm start</code> prints.
        </li>
        <li>Call the API with it:</li>
      </ol>
      <pre>
        <code>{`export TOKEN=${tokenPrefix}_…\ncurl -H "Authorization: Bearer $TOKEN" "${baseUrl}/api/v1/contacts?limit=5"`}</code>
      </pre>
      {control ? (
        <p>
          Tests steer the server through its control surface, <code>{`${baseUrl}/__control/`}</code> (reset,
          clock, faults, journal), with the key the start banner prints.
        </p>
      ) : null}
    </Layout>
  );
}

const TITLES: Record<number, string> = {
  400: "The form could not be read",
  403: "Refused",
  404: "Page not found",
  500: "Something went wrong",
};

export function ErrorPage(props: { context: PageContext; status: number; message: string }) {
  const { context, status, message } = props;
  const title = TITLES[status] ?? "Error";
  return (
    <Layout title={title} context={context} section="none">
      <h1>{title}</h1>
      <p>{message}</p>
      <p>
        <a href="/">Home</a> · <a href={TOKENS_PATH}>API tokens</a>
      </p>
    </Layout>
  );
}
