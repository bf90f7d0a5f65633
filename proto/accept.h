/*
 * accept.h: content negotiation (the Accept header), the same on every
 * endpoint, as kube-apiserver 1.32 does it.
 *
 * Sources (k8s.io/apiserver v0.32, k8s.io/apimachinery v0.32,
 * github.com/munnerz/goautoneg, github.com/emicklei/go-restful/v3 v3.11):
 *
 * Parsing: goautoneg.ParseAccept.  The header is split at every ',' (quotes
 * mean nothing), each element trimmed of spaces (not tabs) and split at
 * its first ';': the media range "type/subtype", each part trimmed of
 * spaces and compared byte for byte (no case folding, so Application/JSON
 * matches nothing); "*" alone reads "*\/\*"; a range with no '/' (other
 * than "*"), or with a second '/' followed by more, is dropped.  Each
 * parameter "name=value" has name and value trimmed of spaces and kept
 * verbatim (quotes are part of the value); one with no '=', an empty
 * value, or a second '=' followed by more is dropped; a repeated name
 * keeps its last value.  "q" (exactly) is the quality, read as Go's
 * strconv.ParseFloat(value, 32) reads it (value untrimmed; anything it
 * refuses reads 0, too large reads +Inf, "NaN" compares false both
 * ways); q=0 does not remove a range.  The ranges are then ordered by
 * Go's sort.Sort (pattern-defeating quicksort, insertion sort for 12
 * ranges or fewer, not stable) with goautoneg's Less: a before b when
 * a.q > b.q, or a's type is not "*" and b's is, or a's subtype is not "*"
 * and b's is.
 *
 * Choosing: negotiation.NegotiateMediaTypeOptions with ringwatch's one
 * serializer, application/json (ringwatch writes neither YAML, protobuf
 * nor CBOR: it answers as a kube-apiserver whose only serializer is JSON,
 * as it serves custom resources without protobuf).  An empty header
 * chooses JSON without conversion.  Otherwise the first range in that
 * order that names JSON ("application/json", "application/\*" or
 * "\*\/\*") and whose parameters the endpoint allows wins:
 *   stream   must be "watch";
 *   sv       must be "v1" on resource endpoints, is refused elsewhere;
 *   as, g, v together name the conversion (any one of them present asks
 *            for one): resource endpoints allow Table (v1 or v1beta1),
 *            PartialObjectMetadata and PartialObjectMetadataList (v1 or
 *            v1beta1), all in group meta.k8s.io; a sendInitialEvents
 *            watch allows them but Table (get.go's
 *            watchListEndpointRestrictions); discovery documents allow no
 *            conversion; /api and /apis also allow APIGroupDiscoveryList in
 *            apidiscovery.k8s.io v2 or v2beta1 (aggregated discovery);
 *   others   (pretty, export, unknown names) are ignored.
 * No winner: 406 NotAcceptable, "only the following media types are
 * accepted: application/json".
 *
 * Before that, go-restful routes a resource request, /version, /api and
 * /apis/GROUP/VERSION only if some comma-separated element of the header,
 * cut at its first ';' and trimmed of spaces, is exactly one of the media
 * types the route produces or "\*\/\*" (an empty header counts as "\*\/\*"):
 * so "application/\*" alone is refused there, with 406 and the message
 * "406: Not Acceptable\n\nAvailable representations: <produces, ", ">".
 * /apis and /apis/GROUP are served by the aggregator outside go-restful.
 *
 * Converting: a conversion is chosen by the header alone, then applied to
 * what the verb returns (handlers/response.go doTransformObject): a GET's
 * object and a WATCH's event objects convert to Table or
 * PartialObjectMetadata, a LIST to Table or PartialObjectMetadataList;
 * the other pairs are 406 (accept_convertible).
 */
#ifndef ACCEPT_H
#define ACCEPT_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/resource_type.h"

/* What a request negotiated: the conversion of its answer. */
enum accept_kind {
    ACCEPT_OBJECT,       /* none: the endpoint's own kind, as JSON */
    ACCEPT_TABLE,        /* meta.k8s.io Table */
    ACCEPT_PARTIAL,      /* meta.k8s.io PartialObjectMetadata */
    ACCEPT_PARTIAL_LIST, /* meta.k8s.io PartialObjectMetadataList */
    ACCEPT_DISCOVERY,    /* apidiscovery.k8s.io APIGroupDiscoveryList */
};

struct accept_choice {
    enum accept_kind kind;
    bool beta; /* meta.k8s.io/v1beta1 (not v1); apidiscovery v2beta1 */
};

/* Which conversions an endpoint allows (the apiserver's
 * EndpointRestrictions). */
enum accept_endpoint {
    ACCEPT_RESOURCE,   /* LIST, GET, WATCH: handlers.RequestScope */
    ACCEPT_WATCH_LIST, /* a sendInitialEvents watch: no Table */
    ACCEPT_DOCUMENT,   /* discovery documents: DefaultEndpointRestrictions */
    ACCEPT_AGGREGATED, /* /api, /apis: aggregated discovery only */
};

/* What a verb returns, for accept_convertible. */
enum accept_verb {
    ACCEPT_GET,   /* one object */
    ACCEPT_LIST,  /* a list */
    ACCEPT_WATCH, /* a stream of events, each carrying one object */
};

/* The 406 messages (the apiserver's and go-restful's). */
#define ACCEPT_NOT_ACCEPTABLE                                                  \
    "only the following media types are accepted: application/json"

/*
 * Negotiates header (the Accept value, NUL-terminated; NULL or "" is
 * empty) for endpoint ep.  Returns true and *out; false when nothing the
 * header allows can be produced (answer 406 with ACCEPT_NOT_ACCEPTABLE).
 * ACCEPT_AGGREGATED answers false unless the header chooses aggregated
 * discovery, as the apiserver's discovery wrapper, which then hands the
 * request to the plain document (negotiate again with ACCEPT_DOCUMENT).
 */
bool accept_negotiate(const char *header, enum accept_endpoint ep,
                      struct accept_choice *out);

/*
 * go-restful's route check: whether header lets a route that produces the
 * NULL-terminated media types produces[] be chosen (see above).  On false,
 * writes the 406 message into why (size bytes, truncated, NUL-terminated).
 */
bool accept_route(const char *header, const char *const *produces, char *why,
                  size_t size);

/*
 * Whether what verb returns for type rt converts to c (see above).  On
 * false, writes the apiserver's 406 message into why (size bytes), e.g.
 * "you requested PartialObjectMetadataList, but the requested object is
 * not a list (*core.Pod)", naming the apiserver's internal Go type.
 */
bool accept_convertible(const struct accept_choice *c, enum accept_verb verb,
                        const struct resource_type *rt, char *why, size_t size);

/*
 * /metrics (Prometheus' expfmt.Negotiate over the same parse): false when
 * the header would make the apiserver answer in the protobuf exposition
 * format (application/vnd.google.protobuf;proto=io.prometheus.client.
 * MetricFamily;encoding=delimited|text|compact-text), which ringwatch does
 * not write, and no range of it accepts text (text/plain with version
 * 0.0.4 or none, text/\*, \*\/\*); true otherwise, the text format being what
 * the apiserver answers to every other header.
 */
bool accept_metrics_text(const char *header);

#endif
