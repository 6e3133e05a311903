import type { Organization } from "../../model/records.js";
import type { FieldErrors, NewTokenField, NewTokenValues } from "./forms.js";
import { CsrfField, Layout, sentence, type PageContext } from "./layout.js";
import { SCOPE_GROUPS, scopeInputId } from "./scopes.js";
import { TOKENS_PATH } from "./token-pages.js";

/** The new-token form of §5.3: name, scopes by resource, an optional expiry date, and its errors. */

const FIELD_ORDER: readonly NewTokenField[] = ["name", "scopes", "expiresOn"];
/** Where an error summary's link takes the keyboard: the field, or the first scope checkbox. */
const FIELD_TARGET: Record<NewTokenField, string> = {
  name: "name",
  scopes: scopeInputId(SCOPE_GROUPS[0]?.scopes[0]?.scope ?? ""),
  expiresOn: "expiresOn",
};

const describedBy = (...ids: (string | false)[]): string => ids.filter((id) => id !== false).join(" ");

function ErrorSummary({ errors }: { errors: FieldErrors }) {
  const fields = FIELD_ORDER.filter((f) => errors[f] !== undefined);
  if (fields.length === 0) return null;
  return (
    <div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex={-1}>
      <h2 id="error-summary-title">The token was not created</h2>
      <ul>
        {fields.map((f) => (
          <li>
            <a href={`#${FIELD_TARGET[f]}`}>{errors[f]}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message === undefined ? null : (
    <p id={id} class="field-error">
      {message}
    </p>
  );
}

export function NewTokenPage(props: {
  context: PageContext;
  organization: Organization;
  values: NewTokenValues;
  errors: FieldErrors;
  earliestExpiry: string;
}) {
  const { context, organization, values, errors, earliestExpiry } = props;
  return (
    <Layout title="New API token" context={context} section="tokens">
      <h1>New API token</h1>
      <p>{`${sentence(`For ${organization.name}`)} The token is shown once, right after it is created.`}</p>
      <ErrorSummary errors={errors} />
      <form method="post" action={TOKENS_PATH} class="token-form">
        <CsrfField token={context.csrfToken} />
        <div class={errors.name === undefined ? "field" : "field invalid"}>
          <label for="name">Name</label>
          <p id="name-hint" class="hint">
            What the token is for, e.g. “Invoice export”. Up to 100 characters.
          </p>
          <FieldError id="name-error" message={errors.name} />
          <input
            id="name"
            name="name"
            type="text"
            required
            autocomplete="off"
            spellcheck={false}
            value={values.name}
            aria-describedby={describedBy("name-hint", errors.name !== undefined && "name-error")}
            aria-invalid={errors.name === undefined ? undefined : "true"}
          />
        </div>
        <fieldset
          class={errors.scopes === undefined ? "field scopes" : "field scopes invalid"}
          aria-describedby={describedBy("scopes-hint", errors.scopes !== undefined && "scopes-error")}
        >
          <legend>Scopes</legend>
          <p id="scopes-hint" class="hint">
            Tick what the token may do, and no more than the integration needs.
          </p>
          <FieldError id="scopes-error" message={errors.scopes} />
          <div class="scope-groups">
            {SCOPE_GROUPS.map((group) => (
              <fieldset class="scope-group">
                <legend>{group.resource}</legend>
                {group.scopes.map(({ scope, permission, comingSoon }) => {
                  const id = scopeInputId(scope);
                  return (
                    <div class="checkbox">
                      <input
                        type="checkbox"
                        id={id}
                        name="scopes"
                        value={scope}
                        checked={values.scopes.includes(scope)}
                        aria-describedby={`${id}-hint`}
                      />
                      <label for={id}>
                        <code>{scope}</code>
                      </label>
                      <span id={`${id}-hint`} class="hint">
                        {permission}
                        {comingSoon ? <span class="badge">coming soon</span> : null}
                      </span>
                    </div>
                  );
                })}
              </fieldset>
            ))}
          </div>
        </fieldset>
        <div class={errors.expiresOn === undefined ? "field" : "field invalid"}>
          <label for="expiresOn">
            Expiry date <span class="optional">(optional)</span>
          </label>
          <p id="expiresOn-hint" class="hint">
            {`The token is Expired from 00:00 UTC on this date; leave it empty for a token that does not expire. The earliest date is ${earliestExpiry}.`}
          </p>
          <FieldError id="expiresOn-error" message={errors.expiresOn} />
          <input
            id="expiresOn"
            name="expiresOn"
            type="date"
            min={earliestExpiry}
            value={values.expiresOn}
            aria-describedby={describedBy(
              "expiresOn-hint",
              errors.expiresOn !== undefined && "expiresOn-error",
            )}
            aria-invalid={errors.expiresOn === undefined ? undefined : "true"}
          />
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            Create token
          </button>
          <a href={TOKENS_PATH}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}
