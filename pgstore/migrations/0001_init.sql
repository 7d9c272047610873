-- Databases, containers and offers. Items live in one table per container,
-- cosmos.items_<container num>, created with the container (see pgstore).
CREATE SEQUENCE cosmos.resource_num_seq;
CREATE SEQUENCE cosmos.offer_num_seq;
CREATE SEQUENCE cosmos.lsn_seq;
CREATE SEQUENCE cosmos.doc_seq;

CREATE TABLE cosmos.databases (
    num  bigint PRIMARY KEY DEFAULT nextval('cosmos.resource_num_seq'),
    id   text COLLATE "C" NOT NULL UNIQUE,
    rid  text COLLATE "C" NOT NULL UNIQUE,
    ts   bigint NOT NULL,
    etag text NOT NULL
);

CREATE TABLE cosmos.containers (
    num         bigint PRIMARY KEY,
    db_num      bigint NOT NULL REFERENCES cosmos.databases (num) ON DELETE CASCADE,
    id          text COLLATE "C" NOT NULL,
    rid         text COLLATE "C" NOT NULL UNIQUE,
    props       text NOT NULL,
    pk_def      jsonb NOT NULL,
    default_ttl integer,
    ts          bigint NOT NULL,
    etag        text NOT NULL,
    UNIQUE (db_num, id)
);

CREATE TABLE cosmos.offers (
    num           bigint PRIMARY KEY,
    rid           text COLLATE "C" NOT NULL UNIQUE,
    db_num        bigint REFERENCES cosmos.databases (num) ON DELETE CASCADE,
    coll_num      bigint REFERENCES cosmos.containers (num) ON DELETE CASCADE,
    resource_rid  text COLLATE "C" NOT NULL UNIQUE,
    resource_self text NOT NULL,
    content       text NOT NULL,
    ts            bigint NOT NULL,
    etag          text NOT NULL
);
