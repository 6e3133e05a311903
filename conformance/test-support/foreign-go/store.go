package main

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"time"
)

// Amounts are int64 counts of 1/10000 of the currency unit: never a binary float.
type money int64

type contact struct {
	ID, Type, Name        string
	Email, Phone, Address *string
	TPS, TVQ              *string
	CreatedAt, UpdatedAt  time.Time
	seeded                bool
}

type product struct {
	ID, SKU, Name        string
	Description          *string
	Type                 string
	UnitPrice            money
	Taxable              bool
	CreatedAt, UpdatedAt time.Time
}

type invoice struct {
	ID, Number                string
	Date, DueDate             time.Time
	Status                    string
	Subtotal, TPS, TVQ, Total money
	Description               string
	ContactID, ContactName    string
	ContactEmail              string
	CreatedAt                 time.Time
}

type account struct{ ID, Code, Name string }

type expense struct {
	ID                      string
	Date                    time.Time
	Status                  string
	Amount, TPS, TVQ, Total money
	Description             string
	ContactID, ContactName  string
	Account                 account
	CreatedAt               time.Time
}

type organization struct {
	ID, Name  string
	APIAccess bool
	contacts  []*contact
	products  []*product
	invoices  []*invoice
	expenses  []*expense
}

type store struct {
	orgs     map[string]*organization
	orgOrder []string
	counters map[string]int
}

func (s *store) nextID(prefix string) string {
	s.counters[prefix]++
	return fmt.Sprintf("%s_%08d", prefix, s.counters[prefix])
}

func midnight(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// cents to money, and the taxes of a taxable base: 5 % and 9.975 %, each rounded half-up to the cent.
func cents(c int64) money { return money(c * 100) }
func taxes(subtotalCents int64) (tps, tvq int64) {
	return (subtotalCents*500 + 5000) / 10000, (subtotalCents*9975 + 50000) / 100000
}

var contactSeeds = map[string][]struct{ typ, name, email, phone string }{
	"org_aurora": {
		{"CLIENT", "Boulangerie Saint-Viateur", "commandes@stviateur.example", "514-555-0101"},
		{"SUPPLIER", "Papeterie Laurier", "ventes@papeterie-laurier.example", "514-555-0102"},
		{"BOTH", "Coopérative Mile-End", "admin@coop-mileend.example", ""},
		{"CLIENT", "Clinique Dentaire Rosemont", "facturation@dentiste-rosemont.example", "514 555-0104"},
		{"SUPPLIER", "Hydro Services Énergie", "", "1-800-555-0105"},
		{"CLIENT", "Théâtre du Plateau", "billetterie@theatreplateau.example", ""},
		{"BOTH", "Atelier Bois & Fer", "info@boisfer.example", "450-555-0107"},
		{"CLIENT", "Café Olimpico", "gerance@olimpico.example", "514-555-0108"},
		{"SUPPLIER", "Imprimerie Gagné", "devis@imprimerie-gagne.example", ""},
		{"CLIENT", "Studio Yoga Lotus", "lotus@yoga.example", "514-555-0110"},
		{"SUPPLIER", "Telecom Fleuve", "support@telecomfleuve.example", "1-888-555-0111"},
		{"CLIENT", "Garage Beaubien", "", ""},
	},
	"org_brume": {
		{"CLIENT", "Épicerie Fine Brume", "achats@epicerie-brume.example", "418-555-0201"},
		{"SUPPLIER", "Transport Côte-Nord", "logistique@tcn.example", "418-555-0202"},
		{"CLIENT", "Auberge du Lac", "reservation@aubergedulac.example", ""},
		{"SUPPLIER", "Fromagerie Charlevoix", "ventes@fromagerie-cx.example", "418-555-0204"},
		{"CLIENT", "Musée de la Mer", "comptes@museemer.example", "418-555-0205"},
		{"SUPPLIER", "Quincaillerie Tremblay", "", "418-555-0206"},
	},
	"org_gratis": {
		{"CLIENT", "Client de la coop", "client@gratis.example", ""},
		{"SUPPLIER", "Fournisseur de la coop", "", ""},
	},
}

var productSeeds = map[string][]struct {
	sku, name, desc, typ string
	cents                int64
	taxable              bool
}{
	"org_aurora": {
		{"CONS-H", "Consultation (heure)", "Une heure de consultation en design", "SERVICE", 12500, true},
		{"LOGO-STD", "Logo standard", "Trois propositions, deux révisions", "SERVICE", 95000, true},
		{"AFF-A2", "Affiche A2", "", "PRODUCT", 4599, true},
		{"CARTE-500", "Cartes d'affaires (500)", "Impression recto verso", "PRODUCT", 8950, true},
		{"FORM-J", "Formation (journée)", "Atelier de formation", "SERVICE", 120000, false},
		{"LIVRE-GUIDE", "Guide de style imprimé", "", "PRODUCT", 3500, false},
		{"SITE-VITRINE", "Site vitrine", "Cinq pages, responsive", "SERVICE", 450000, true},
		{"RETOUCHE", "Retouche photo", "", "SERVICE", 1999, true},
	},
	"org_brume": {
		{"PANIER-CADEAU", "Panier cadeau", "Produits du terroir", "PRODUCT", 7500, false},
		{"LIVRAISON", "Livraison", "", "SERVICE", 1500, true},
		{"CONFIT-OIGNON", "Confit d'oignon", "Pot de 250 ml", "PRODUCT", 899, false},
		{"DEGUSTATION", "Dégustation privée", "", "SERVICE", 30000, true},
	},
}

var accountsChart = []account{
	{"a_00000001", "5010", "Fournitures de bureau"},
	{"a_00000002", "5200", "Loyer"},
	{"a_00000003", "5300", "Télécommunications"},
	{"a_00000004", "5400", "Déplacements"},
	{"a_00000005", "5500", "Honoraires professionnels"},
	{"a_00000006", "5600", "Publicité et promotion"},
}

type orgPlan struct {
	id, name           string
	apiAccess          bool
	invoices, expenses int
	invoiceStatuses    []string
	busyDay            int // invoices on one date, for the pagination hole of spec-gaps #9
}

func newStore() *store {
	s := &store{orgs: map[string]*organization{}, counters: map[string]int{}}
	rng := rand.New(rand.NewSource(20260101))
	plans := []orgPlan{
		{"org_aurora", "Atelier Aurore inc.", true, 260, 230, []string{"DRAFT", "SENT", "PAID", "PAID", "PAID", "OVERDUE", "VOIDED"}, 30},
		{"org_brume", "Brume & fils", true, 45, 25, []string{"DRAFT", "SENT", "PAID", "PAID", "OVERDUE"}, 0},
		{"org_gratis", "Gratis coop", false, 3, 2, []string{"PAID"}, 0},
	}
	for _, p := range plans {
		o := &organization{ID: p.id, Name: p.name, APIAccess: p.apiAccess}
		s.orgs[p.id] = o
		s.orgOrder = append(s.orgOrder, p.id)
		s.seedOrg(o, p, rng)
	}
	return s
}

func strp(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

func (s *store) seedOrg(o *organization, p orgPlan, rng *rand.Rand) {
	base := midnight(2026, 1, 5)
	for i, c := range contactSeeds[o.ID] {
		at := base.Add(time.Duration(i*9+rng.Intn(5))*24*time.Hour + time.Duration(rng.Intn(8*3600*1000))*time.Millisecond + 9*time.Hour)
		ct := &contact{ID: s.nextID("c"), Type: c.typ, Name: c.name, Email: strp(c.email), Phone: strp(c.phone), CreatedAt: at, UpdatedAt: at, seeded: true}
		if i%3 == 0 {
			ct.Address = strp(fmt.Sprintf("%d rue Saint-Denis, Montréal (Québec) H2X %dA%d", 100+i*37, i%10, (i*7)%10))
		}
		if i%2 == 0 {
			ct.TPS = strp(fmt.Sprintf("1234%05d RT0001", i*1111))
			ct.TVQ = strp(fmt.Sprintf("1234%06d TQ0001", i*2222))
		}
		if i%4 == 1 {
			ct.UpdatedAt = at.Add(72 * time.Hour)
		}
		o.contacts = append(o.contacts, ct)
	}
	for i, ps := range productSeeds[o.ID] {
		at := base.Add(time.Duration(i*11)*24*time.Hour + time.Duration(rng.Intn(8*3600*1000))*time.Millisecond + 10*time.Hour)
		o.products = append(o.products, &product{ID: s.nextID("p"), SKU: ps.sku, Name: ps.name, Description: strp(ps.desc), Type: ps.typ, UnitPrice: cents(ps.cents), Taxable: ps.taxable, CreatedAt: at, UpdatedAt: at})
	}
	var clients, suppliers []*contact
	for _, c := range o.contacts {
		if c.Type != "SUPPLIER" && c.Email != nil {
			clients = append(clients, c)
		}
		if c.Type != "CLIENT" {
			suppliers = append(suppliers, c)
		}
	}
	// invoices: dates over ten months, p.busyDay of them on 2026-06-15
	dates := make([]time.Time, p.invoices)
	for i := range dates {
		if i < p.busyDay {
			dates[i] = midnight(2026, 6, 15)
		} else {
			dates[i] = base.AddDate(0, 0, rng.Intn(298))
		}
	}
	sort.Slice(dates, func(a, b int) bool { return dates[a].Before(dates[b]) })
	for i, d := range dates {
		c := clients[rng.Intn(len(clients))]
		sub := int64(5000 + rng.Intn(795000))
		tps, tvq := taxes(sub)
		status := p.invoiceStatuses[rng.Intn(len(p.invoiceStatuses))]
		created := d.Add(9*time.Hour + time.Duration(rng.Intn(8*3600*1000))*time.Millisecond)
		if status == "DRAFT" {
			created = created.AddDate(0, 0, -2) // drafts are prepared ahead of their date
		}
		email := ""
		if c.Email != nil {
			email = *c.Email
		}
		o.invoices = append(o.invoices, &invoice{
			ID: s.nextID("i"), Number: fmt.Sprintf("%s-2026-%04d", strings.ToUpper(o.ID[4:7]), i+1), Date: d, DueDate: d.AddDate(0, 0, 30),
			Status: status, Subtotal: cents(sub), TPS: cents(tps), TVQ: cents(tvq), Total: cents(sub + tps + tvq),
			Description: fmt.Sprintf("Services rendus, %s", d.Format("2006-01")), ContactID: c.ID, ContactName: c.Name, ContactEmail: email,
			CreatedAt: created,
		})
	}
	expStatuses := []string{"DRAFT", "APPROVED", "APPROVED", "PAID", "PAID", "PAID", "REJECTED"}
	for i := 0; i < p.expenses; i++ {
		d := base.AddDate(0, 0, rng.Intn(298))
		c := suppliers[rng.Intn(len(suppliers))]
		amt := int64(1000 + rng.Intn(250000))
		tps, tvq := taxes(amt)
		if i%5 == 4 {
			tps, tvq = 0, 0 // exempt supplies
		}
		created := d.AddDate(0, 0, 1).Add(8*time.Hour + time.Duration(rng.Intn(10*3600*1000))*time.Millisecond)
		if i%3 == 0 {
			created = d.AddDate(0, 0, -1).Add(8*time.Hour + time.Duration(rng.Intn(10*3600*1000))*time.Millisecond) // recorded ahead (pre-approved)
		}
		o.expenses = append(o.expenses, &expense{
			ID: s.nextID("e"), Date: d, Status: expStatuses[rng.Intn(len(expStatuses))],
			Amount: cents(amt), TPS: cents(tps), TVQ: cents(tvq), Total: cents(amt + tps + tvq),
			Description: fmt.Sprintf("Dépense %d", i+1), ContactID: c.ID, ContactName: c.Name,
			Account: accountsChart[rng.Intn(len(accountsChart))], CreatedAt: created,
		})
	}
}
