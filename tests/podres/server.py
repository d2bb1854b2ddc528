#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A kubelet pod-resources API for tests/test_podres.c: v1.PodResourcesLister
on a unix socket, answering from a JSON file of recorded answers, or
misbehaving as asked.

    server.py --pb DIR --socket PATH --ready FILE [--answers JSON]
              [--never-answer | --huge BYTES | --malformed]
              [--unimplemented Get,GetAllocatableResources]

DIR holds api_pb2.py (grpc_tools.protoc --python_out from the proto the build
stripped); JSON is {"list": ListPodResourcesResponse, "allocatable":
AllocatableResourcesResponse}, in protobuf's JSON mapping. Get answers from
the list as the kubelet does ("pod NAME in namespace NS not found", status
UNKNOWN). FILE is written once the server accepts calls.

The handlers take and give raw bytes (no serializers), so --malformed can
answer bytes that are not the message at all."""
import argparse
import json
import os
import sys
import time
from concurrent import futures

import grpc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--pb', required=True)
    ap.add_argument('--socket', required=True)
    ap.add_argument('--ready', required=True)
    ap.add_argument('--answers')
    ap.add_argument('--never-answer', action='store_true')
    ap.add_argument('--huge', type=int, default=0)
    ap.add_argument('--malformed', action='store_true')
    ap.add_argument('--unimplemented', default='')
    a = ap.parse_args()

    sys.path.insert(0, a.pb)
    import api_pb2
    from google.protobuf import json_format

    answers = {}
    if a.answers:
        with open(a.answers, encoding='utf-8') as f:
            answers = json.load(f)
    listed = json_format.ParseDict(answers.get('list', {}), api_pb2.ListPodResourcesResponse())
    alloc = json_format.ParseDict(answers.get('allocatable', {}),
                                  api_pb2.AllocatableResourcesResponse())

    def answer(good):
        def fn(request, context):
            if a.never_answer:
                time.sleep(3600)
            if a.malformed:
                # Field 1, length-delimited, of a length past the end.
                return b'\x0a\xff\xff\xff\x7f\x01\x02'
            if a.huge:
                m = api_pb2.ListPodResourcesResponse()
                m.pod_resources.add(name='x' * a.huge, namespace='huge')
                return m.SerializeToString()
            return good(request, context).SerializeToString()
        return grpc.unary_unary_rpc_method_handler(fn)

    def get(request, context):
        req = api_pb2.GetPodResourcesRequest.FromString(request)
        for p in listed.pod_resources:
            if p.name == req.pod_name and p.namespace == req.pod_namespace:
                return api_pb2.GetPodResourcesResponse(pod_resources=p)
        context.abort(grpc.StatusCode.UNKNOWN,
                      f'pod {req.pod_name} in namespace {req.pod_namespace} not found')

    methods = {
        'List': answer(lambda req, ctx: listed),
        'GetAllocatableResources': answer(lambda req, ctx: alloc),
        'Get': answer(get),
    }
    for m in filter(None, a.unimplemented.split(',')):
        del methods[m]  # gRPC answers UNIMPLEMENTED for a method it lacks

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler('v1.PodResourcesLister', methods),))
    if os.path.lexists(a.socket):
        os.unlink(a.socket)
    server.add_insecure_port('unix:' + a.socket)
    server.start()
    with open(a.ready, 'w', encoding='utf-8') as f:
        f.write(f'{os.getpid()}\n')
    server.wait_for_termination()


if __name__ == '__main__':
    sys.exit(main())
