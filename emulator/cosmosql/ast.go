// Package cosmosql is the Cosmos DB for NoSQL query language: lexer,
// parser, abstract syntax tree and semantic checks. It depends only on the
// standard library.
package cosmosql

// Pos is a byte offset into the query text (0-based).
type Pos int

// Query is a SELECT statement (also the body of subqueries).
type Query struct {
	Pos      Pos
	Distinct bool
	// Top is the TOP argument: a *Literal number or a *Param; nil if absent.
	Top    Expr
	Select Selection
	// From is nil for SELECT without FROM (evaluated once).
	From    *From
	Where   Expr // nil if absent
	GroupBy []Expr
	OrderBy []OrderItem
	// Rank is the scoring expression of ORDER BY RANK <expr> (full-text
	// and hybrid search); nil if absent. OrderBy is empty when it is set.
	Rank Expr
	// Offset and Limit are *Literal numbers or *Param; both nil or both set.
	Offset, Limit Expr
}

// Selection is the SELECT list.
type Selection struct {
	Star  bool         // SELECT *
	Value Expr         // SELECT VALUE <expr>; nil otherwise
	Items []SelectItem // SELECT e1 [AS a1], e2 ...
}

// SelectItem is one projected expression with its optional alias.
type SelectItem struct {
	Expr  Expr
	Alias string // "" when not given
}

// From is the FROM clause: a first source and the JOINed ones.
type From struct {
	Source Source
	Joins  []Source
}

// Source is one FROM/JOIN source:
//
//	<container_expr> [[AS] alias]     e.g. c, root r, c.children ch, c["a"] x
//	alias IN <container_expr>         iterate the elements of an array
//	( <query> ) [[AS] alias]          subquery source
type Source struct {
	Pos   Pos
	Alias string // the name the source binds ("" if none was given and none can be derived)
	// In is true for the "alias IN expr" form.
	In bool
	// Expr is the container expression: an *Ident (the container or an
	// earlier alias, or ROOT written as Ident{Name: "root"}) optionally
	// followed by *Member / *Index accesses with literal indexes. Nil for a
	// subquery source.
	Expr Expr
	// Subquery is set for the "( query )" form.
	Subquery *Query
}

// OrderItem is one ORDER BY term.
type OrderItem struct {
	Expr Expr
	Desc bool
	// Computed is the name of the computed property Expr was expanded
	// from when the term named one (ORDER BY c.cp), "" otherwise: the
	// term's path for composite indexes is then /<Computed>. The parser
	// never sets it.
	Computed string
}

// Expr is a scalar expression.
type Expr interface {
	Position() Pos
	exprNode()
}

// Undefined is the value of the `undefined` literal.
type Undefined struct{}

// Literal is a constant: nil (null), bool, float64, string or Undefined.
type Literal struct {
	P     Pos
	Value any
}

// Ident is a bare identifier: a FROM alias (or the container name / ROOT).
type Ident struct {
	P    Pos
	Name string
}

// Param is a parameter reference @name (Name includes the '@').
type Param struct {
	P    Pos
	Name string
}

// Member is x.name.
type Member struct {
	P    Pos
	X    Expr
	Name string
}

// Index is x[index]: a string index is a property name, a number an array
// index, anything else is evaluated.
type Index struct {
	P     Pos
	X     Expr
	Index Expr
}

// Unary is a prefix operator: "-", "+", "~" or "NOT".
type Unary struct {
	P  Pos
	Op string
	X  Expr
}

// Binary is an infix operator. Op is one of:
// "*" "/" "%" "+" "-" "||" "<" "<=" ">" ">=" "=" "!=" (also for <>)
// "&" "|" "^" "<<" ">>" ">>>" "AND" "OR" "??".
type Binary struct {
	P    Pos
	Op   string
	L, R Expr
}

// Between is x [NOT] BETWEEN lo AND hi.
type Between struct {
	P         Pos
	X, Lo, Hi Expr
	Not       bool
}

// In is x [NOT] IN (e1, e2, ...).
type In struct {
	P    Pos
	X    Expr
	List []Expr
	Not  bool
}

// Like is x [NOT] LIKE pattern [ESCAPE esc].
type Like struct {
	P       Pos
	X       Expr
	Pattern Expr
	Escape  Expr // nil if absent
	Not     bool
}

// Ternary is cond ? then : else.
type Ternary struct {
	P                Pos
	Cond, Then, Else Expr
}

// Call is a function call. Name is upper-cased for built-ins; UDF calls
// (udf.name(...)) keep the name as written and set UDF.
type Call struct {
	P    Pos
	Name string
	Args []Expr
	UDF  bool
}

// ArrayLit is [e1, e2, ...].
type ArrayLit struct {
	P     Pos
	Elems []Expr
}

// Field is one member of an object constructor.
type Field struct {
	Key   string
	Value Expr
}

// ObjectLit is {k1: e1, "k2": e2, ...}.
type ObjectLit struct {
	P      Pos
	Fields []Field
}

// SubqueryKind says how a subquery expression is used.
type SubqueryKind int

// Subquery kinds.
const (
	ScalarSubquery SubqueryKind = iota // ( SELECT ... )
	ExistsSubquery                     // EXISTS ( SELECT ... )
	ArraySubquery                      // ARRAY ( SELECT ... )
)

// Subquery is a subquery used as an expression.
type Subquery struct {
	P     Pos
	Kind  SubqueryKind
	Query *Query
}

func (e *Literal) Position() Pos   { return e.P }
func (e *Ident) Position() Pos     { return e.P }
func (e *Param) Position() Pos     { return e.P }
func (e *Member) Position() Pos    { return e.P }
func (e *Index) Position() Pos     { return e.P }
func (e *Unary) Position() Pos     { return e.P }
func (e *Binary) Position() Pos    { return e.P }
func (e *Between) Position() Pos   { return e.P }
func (e *In) Position() Pos        { return e.P }
func (e *Like) Position() Pos      { return e.P }
func (e *Ternary) Position() Pos   { return e.P }
func (e *Call) Position() Pos      { return e.P }
func (e *ArrayLit) Position() Pos  { return e.P }
func (e *ObjectLit) Position() Pos { return e.P }
func (e *Subquery) Position() Pos  { return e.P }

func (*Literal) exprNode()   {}
func (*Ident) exprNode()     {}
func (*Param) exprNode()     {}
func (*Member) exprNode()    {}
func (*Index) exprNode()     {}
func (*Unary) exprNode()     {}
func (*Binary) exprNode()    {}
func (*Between) exprNode()   {}
func (*In) exprNode()        {}
func (*Like) exprNode()      {}
func (*Ternary) exprNode()   {}
func (*Call) exprNode()      {}
func (*ArrayLit) exprNode()  {}
func (*ObjectLit) exprNode() {}
func (*Subquery) exprNode()  {}

// SyntaxError is a positioned parse error with the service's error code
// (SC1001 syntax error, SC1002 empty query, SC1010 invalid token such as a
// trailing ';', SC2022 duplicate alias, ...).
type SyntaxError struct {
	Code    string
	Message string
	Start   Pos
	End     Pos
}

// Error implements error.
func (e *SyntaxError) Error() string { return e.Code + ": " + e.Message }
