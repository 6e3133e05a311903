/**
 * The document's examples, by operation: what "Try it out" on /docs sends, and what each answer looks
 * like. Without them Swagger UI made its own from the schemas: a contact named `P{Cs}}}}…` (it cannot
 * read the text pattern), a random e-mail, timestamps in the year 5696. Each request example is one
 * the reference accepts with its documented status, and each answer example is valid against its
 * schema (src/openapi/examples.test.ts sends and checks them all).
 */

const contact = {
  id: "con_4kMbMBrn0VJnqsQS",
  type: "SUPPLIER",
  name: "Gestion immobilière Plateau inc.",
  email: "loyers@gestionplateau.example",
  phone: "514-555-0190",
  address: "4521, boulevard Saint-Laurent, bureau 200, Montréal (Québec) H2T 1R2",
  taxNumberTPS: "756781234 RT0001",
  taxNumberTVQ: "1201122334 TQ0001",
  createdAt: "2025-01-10T18:37:11.568Z",
  updatedAt: "2025-01-10T18:37:11.568Z",
};

const product = {
  id: "prd_xOnQuZSkxA7BvJZi",
  sku: "SRV-HOUR",
  name: "Heure de design graphique",
  description: "Taux horaire pour la conception graphique et la direction artistique.",
  type: "SERVICE",
  unitPrice: "95.0000",
  taxable: true,
  createdAt: "2025-01-15T14:11:06.277Z",
  updatedAt: "2026-01-30T18:30:20.276Z",
};

const invoice = {
  id: "inv_FoWdOxvcMT0qE6Tg",
  invoiceNumber: "SL-2025-0001",
  date: "2025-02-12T00:00:00.000Z",
  dueDate: "2025-03-14T00:00:00.000Z",
  status: "PAID",
  subtotal: "4850.0000",
  tps: "242.5000",
  tvq: "483.7900",
  total: "5576.2900",
  description: "Identité visuelle complète : logo, palette et gabarits",
  contact: {
    id: "con_NPIGs6gQ35r9yRUI",
    name: "Brasserie La Voûte inc.",
    email: "comptabilite@brasserielavoute.example",
  },
  createdAt: "2025-02-12T15:54:16.560Z",
};

const expense = {
  id: "exp_UiQAEDqlEXpms56H",
  date: "2025-02-01T00:00:00.000Z",
  status: "PAID",
  amount: "2450.0000",
  tps: "122.5000",
  tvq: "244.3900",
  total: "2816.8900",
  description: "Loyer du studio – février 2025",
  contact: { id: "con_4kMbMBrn0VJnqsQS", name: "Gestion immobilière Plateau inc." },
  account: { id: "acc_8b30WtYJoDbbmgAk", code: "5300", name: "Loyer" },
  createdAt: "2025-02-01T13:57:52.592Z",
};

export interface OperationExamples {
  /** The body "Try it out" sends. */
  request?: Record<string, unknown>;
  /** The success answer's `data`. */
  data: unknown;
}

export const EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  listContacts: { data: [contact] },
  createContact: {
    request: {
      type: "CLIENT",
      name: "Atelier Mile-End",
      email: "factures@ateliermileend.example",
      phone: "514-555-0142",
    },
    data: {
      id: "con_7QpWm2LxR4sTn8Vb",
      type: "CLIENT",
      name: "Atelier Mile-End",
      email: "factures@ateliermileend.example",
      phone: "514-555-0142",
      createdAt: "2026-11-20T12:00:00.000Z",
    },
  },
  listProducts: { data: [product] },
  createProduct: {
    request: {
      sku: "SRV-WORKSHOP",
      name: "Atelier de marque (demi-journée)",
      type: "SERVICE",
      unitPrice: 480.5,
      taxable: true,
    },
    data: {
      id: "prd_3HdKz9PmYw6qRt2N",
      sku: "SRV-WORKSHOP",
      name: "Atelier de marque (demi-journée)",
      description: null,
      type: "SERVICE",
      unitPrice: "480.5000",
      taxable: true,
      createdAt: "2026-11-20T12:00:00.000Z",
      updatedAt: "2026-11-20T12:00:00.000Z",
    },
  },
  listInvoices: { data: [invoice] },
  listExpenses: { data: [expense] },
};
