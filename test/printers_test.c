/*
 * printers_test.c: the cells of every type's Table row (proto/printers_*.c)
 * at a fixed time, one test per type with the cases of kube-apiserver
 * 1.32's printers_test.go (TestPrintPod*, TestPrintNode*, TestPrintEvent,
 * TestPrintJob, TestPrintCronJob, TestPrintHPA, TestPrintService,
 * TestPrintEndpoint, TestPrintPersistentVolume(Claim), TestPrintReplicaSet,
 * TestPrintStatefulSet, TestPrintDaemonSet, TestPrintReplicationController,
 * TestPrintDeployment, TestPrintLease...) written as the stored v1 objects
 * they stand for, plus the branches those leave out.
 *
 * printers_test.go feeds the printers internal objects without defaults;
 * the apiserver reads stored objects through the v1 defaults first, so
 * where a fixture leaves a defaulted field unset the expectation is the
 * default's cell (a volume's Filesystem mode, a HorizontalPodAutoscaler's
 * 80% CPU target...), as a real apiserver would show it.
 */
#include "test/printers_testlib.h"

/* ------------------------------------------------------------------ */
/* Core                                                                */
/* ------------------------------------------------------------------ */

static void test_events(void **state)
{
    const char *deploy = "'involvedObject':{'kind':'Deployment','name':"
                         "'Deployment Name','fieldPath':'spec.containers{foo}'}"
                         ",'reason':'Event Reason','message':'Message Data'";
    char json[1024];

    (void)state;
    row_is("events", "event1",
           "{'source':{'component':'kubelet'},'involvedObject':{'kind':'Pod',"
           "'name':'Pod Name','fieldPath':'spec.containers{foo}'},'reason':"
           "'Event Reason','message':'Message Data','firstTimestamp':'" AGO_3D
           "','lastTimestamp':'" AGO_2D "','count':6,'type':'Normal'}",
           "['2d','Normal','Event Reason','pod/Pod Name',"
           "'spec.containers{foo}','kubelet','Message Data','3d',6,'event1']");
    snprintf(json, sizeof(json),
             "{'source':{'component':'kubelet','host':'Node1'},%s,"
             "'firstTimestamp':'" AGO_3D "','lastTimestamp':'" AGO_2D
             "','count':6,'type':'Warning'}",
             deploy);
    row_is("events", "event2", json,
           "['2d','Warning','Event Reason','deployment/Deployment Name',"
           "'spec.containers{foo}','kubelet, Node1','Message Data','3d',6,"
           "'event2']");
    /* Without firstTimestamp: eventTime; without lastTimestamp: the
     * first; a series: its last observation and count; no count: 1. */
    snprintf(json, sizeof(json),
             "{'source':{'component':'kubelet','host':'Node1'},%s,"
             "'eventTime':'2023-12-30T03:04:05.000000Z','lastTimestamp':"
             "'" AGO_3D "','count':1,'type':'Warning'}",
             deploy);
    row_is("events", "event3", json,
           "['3d','Warning','Event Reason','deployment/Deployment Name',"
           "'spec.containers{foo}','kubelet, Node1','Message Data','3d',1,"
           "'event3']");
    snprintf(json, sizeof(json),
             "{'source':{'component':'kubelet','host':'Node1'},%s,"
             "'eventTime':'2023-12-30T03:04:05.000000Z','firstTimestamp':'"
             "2023-12-31T03:04:05Z','type':'Warning'}",
             deploy);
    row_is("events", "event4", json,
           "['2d','Warning','Event Reason','deployment/Deployment Name',"
           "'spec.containers{foo}','kubelet, Node1','Message Data','2d',1,"
           "'event4']");
    snprintf(json, sizeof(json),
             "{'source':{'component':'kubelet','host':'Node1'},%s,"
             "'series':{'count':2,'lastObservedTime':"
             "'2023-12-31T03:04:05.123456Z'},'eventTime':"
             "'2023-12-30T03:04:05.000000Z','type':'Warning'}",
             deploy);
    row_is("events", "event6", json,
           "['2d','Warning','Event Reason','deployment/Deployment Name',"
           "'spec.containers{foo}','kubelet, Node1','Message Data','3d',2,"
           "'event6']");
    /* The new API's reporting controller and instance stand in for an
     * empty source; a kind without a name; the message trimmed. */
    row_is("events", "event8",
           "{'reportingComponent':'kubelet','reportingInstance':'test',"
           "'involvedObject':{'kind':'Node'},'message':' \\t Started \\u00a0\\n"
           "','firstTimestamp':null,'type':'Normal'}",
           "['<unknown>','Normal','','node','','kubelet, test','Started',"
           "'<unknown>',1,'event8']");
    row_is("events", "event9",
           "{'source':{'host':'n1'},'reportingComponent':'ctl','count':0}",
           "['<unknown>','','','','','ctl, n1','','<unknown>',1,'event9']");
}

static void test_nodes(void **state)
{
    (void)state;
    row_is("nodes", "n1",
           "{'metadata':{'labels':{'node-role.kubernetes.io/control-plane':'',"
           "'kubernetes.io/role':'master','node-role.kubernetes.io/master':"
           "'true'}},'spec':{'unschedulable':true},'status':{'conditions':[{"
           "'type':'MemoryPressure','status':'False'},{'type':'Ready',"
           "'status':'True'}],'addresses':[{'type':'InternalIP','address':"
           "'192.168.1.2'}],'nodeInfo':{'kubeletVersion':'v1.32.0','osImage':"
           "'Debian'}}}",
           "['n1','Ready,SchedulingDisabled','control-plane,master',"
           "'<unknown>','v1.32.0','192.168.1.2','<none>','Debian','<unknown>',"
           "'<unknown>']");
    row_is("nodes", "foo10",
           "{'metadata':{'labels':{'node-role.kubernetes.io/master':'',"
           "'node-role.kubernetes.io/control-plane':'','node-role.kubernetes.io"
           "/proxy':'','kubernetes.io/role':'node'}},'status':{'conditions':"
           "[{'type':'Ready','status':'False'}],'addresses':[{'type':"
           "'ExternalIP','address':'2.2.2.2'},{'type':'InternalIP','address':"
           "'3.3.3.3'},{'type':'ExternalIP','address':'4.4.4.4'}],'nodeInfo':{"
           "'containerRuntimeVersion':'foo://1.2.3'}}}",
           "['foo10','NotReady','control-plane,master,node,proxy','<unknown>',"
           "'','3.3.3.3','2.2.2.2','<unknown>','<unknown>','foo://1.2.3']");
    row_is("nodes", "foo6",
           "{'spec':{'unschedulable':true},'status':{'conditions':[{'type':"
           "'InvalidValue','status':'True'}]}}",
           "['foo6','Unknown,SchedulingDisabled','<none>','<unknown>','',"
           "'<none>','<none>','<unknown>','<unknown>','<unknown>']");
}

static void test_namespaces_configmaps_secrets(void **state)
{
    (void)state;
    row_is("namespaces", "namespace1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'status':{'phase':"
           "'FooStatus'}}",
           "['namespace1','FooStatus','0s']");
    /* No phase: Active, the v1 default. */
    row_is("namespaces", "namespace2", "{}",
           "['namespace2','Active','<unknown>']");
    row_is("configmaps", "configmap1", "{}", "['configmap1',0,'<unknown>']");
    row_is("configmaps", "configmap3",
           "{'data':{'foo':'bar','x':'1','foo':'baz'},'binaryData':{'bin':"
           "'AA=='}}",
           "['configmap3',3,'<unknown>']");
    row_is("secrets", "secret1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'type':"
           "'kubernetes.io/service-account-token','data':{'token':'dg=='}}",
           "['secret1','kubernetes.io/service-account-token',1,'0s']");
    /* No type: Opaque; stringData merged into data. */
    row_is("secrets", "secret2",
           "{'data':{'a':'dg=='},'stringData':{'a':'x','b':'y'}}",
           "['secret2','Opaque',2,'<unknown>']");
}

static void test_serviceaccounts(void **state)
{
    (void)state;
    row_is("serviceaccounts", "sa1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'secrets':[]}",
           "['sa1',0,'0s']");
    row_is("serviceaccounts", "sa2",
           "{'metadata':{'creationTimestamp':'" AGO_5M "'},'secrets':[{'name':"
           "'Secret1'},{'name':'Secret2'}]}",
           "['sa2',2,'5m']");
}

/* ------------------------------------------------------------------ */
/* Services and endpoints                                              */
/* ------------------------------------------------------------------ */

static void test_services(void **state)
{
    (void)state;
    row_is("services", "test1",
           "{'spec':{'type':'ClusterIP','ports':[{'protocol':'tcp','port':"
           "2233}],'clusterIPs':['10.9.8.7'],'selector':{'foo':'bar'}}}",
           "['test1','ClusterIP','10.9.8.7','<none>','2233/tcp','<unknown>',"
           "'foo=bar']");
    row_is("services", "test2",
           "{'spec':{'type':'NodePort','ports':[{'protocol':'tcp','port':8888,"
           "'nodePort':9999},{'port':53,'protocol':'UDP'}],'clusterIPs':"
           "['10.9.8.7']}}",
           "['test2','NodePort','10.9.8.7','<none>','8888:9999/tcp,53/UDP',"
           "'<unknown>','<none>']");
    row_is("services", "test3",
           "{'spec':{'type':'LoadBalancer','ports':[{'port':8888}],"
           "'clusterIPs':['10.9.8.7']}}",
           "['test3','LoadBalancer','10.9.8.7','<pending>','8888/TCP',"
           "'<unknown>','<none>']");
    row_is("services", "test4",
           "{'spec':{'type':'LoadBalancer','clusterIPs':['10.9.8.7'],"
           "'externalIPs':['80.11.12.10']}}",
           "['test4','LoadBalancer','10.9.8.7','80.11.12.10','<none>',"
           "'<unknown>','<none>']");
    row_is("services", "test6",
           "{'spec':{'type':'LoadBalancer','clusterIPs':['10.9.8.7'],"
           "'externalIPs':['80.11.12.10','80.11.12.11']},'status':{"
           "'loadBalancer':{'ingress':[{'ip':'3.4.5.6','hostname':"
           "'test.cluster.com'},{'ip':'2.3.4.5','hostname':'x'},{'hostname':"
           "'a.example'},{'ip':'2.3.4.5'}]}}}",
           "['test6','LoadBalancer','10.9.8.7','2.3.4.5,3.4.5.6,a.example,"
           "80.11.12.10,80.11.12.11','<none>','<unknown>','<none>']");
    row_is("services", "test7",
           "{'spec':{'type':'ExternalName','externalName':"
           "'my.database.example.com'}}",
           "['test7','ExternalName','<none>','my.database.example.com',"
           "'<none>','<unknown>','<none>']");
    /* No type: ClusterIP; a Service from before dual-stack (clusterIP
     * only); a headless one. */
    row_is("services", "legacy",
           "{'spec':{'clusterIP':'10.0.0.1','externalIPs':['1.1.1.1']}}",
           "['legacy','ClusterIP','10.0.0.1','1.1.1.1','<none>','<unknown>',"
           "'<none>']");
    row_is("services", "headless",
           "{'spec':{'clusterIP':'None','clusterIPs':['None'],'type':"
           "'ClusterIP'}}",
           "['headless','ClusterIP','None','<none>','<none>','<unknown>',"
           "'<none>']");
}

static void test_endpoints(void **state)
{
    (void)state;
    row_is("endpoints", "endpoint1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'}}",
           "['endpoint1','<none>','0s']");
    row_is("endpoints", "endpoint3",
           "{'metadata':{'creationTimestamp':'" AGO_5M "'},'subsets':[{"
           "'addresses':[{'ip':'1.2.3.4'},{'ip':'5.6.7.8'}]}]}",
           "['endpoint3','1.2.3.4,5.6.7.8','5m']");
    row_is("endpoints", "endpoint2",
           "{'subsets':[{'addresses':[{'ip':'1.2.3.4'},{'ip':'5.6.7.8'}],"
           "'ports':[{'port':8001,'protocol':'TCP'}]}]}",
           "['endpoint2','1.2.3.4:8001,5.6.7.8:8001','<unknown>']");
    row_is("endpoints", "endpoint4",
           "{'subsets':[{'addresses':[{'ip':'1.2.3.4'},{'ip':'5.6.7.8'},{"
           "'ip':'9.8.7.6'},{'ip':'6.6.6.6'}],'ports':[{'port':8001}]}]}",
           "['endpoint4','1.2.3.4:8001,5.6.7.8:8001,9.8.7.6:8001 + 1 "
           "more...','<unknown>']");
    /* Each port with each address, IPv6 in brackets, counted across
     * subsets; not-ready addresses are not listed. */
    row_is("endpoints", "multi",
           "{'subsets':[{'addresses':[{'ip':'2001:db8::1'},{'ip':'10.0.0.1'}],"
           "'notReadyAddresses':[{'ip':'10.0.0.9'}],'ports':[{'port':80},{"
           "'port':443}]},{'addresses':[{'ip':'10.0.0.2'}]}]}",
           "['multi','[2001:db8::1]:80,10.0.0.1:80,[2001:db8::1]:443 + 2 "
           "more...','<unknown>']");
    row_is("endpoints", "exactly3",
           "{'subsets':[{'addresses':[{'ip':'a'}],'ports':[{'port':1},{'port':"
           "2},{'port':3}]},{'notReadyAddresses':[{'ip':'b'}]}]}",
           "['exactly3','a:1,a:2,a:3','<unknown>']");
}

/* ------------------------------------------------------------------ */
/* Storage                                                             */
/* ------------------------------------------------------------------ */

static void test_persistentvolumes(void **state)
{
    (void)state;
    row_is("persistentvolumes", "test1",
           "{'spec':{'claimRef':{'name':'test','namespace':'default'},"
           "'accessModes':['ReadOnlyMany'],'capacity':{'storage':'4Gi'}},"
           "'status':{'phase':'Bound'}}",
           "['test1','4Gi','ROX','Retain','Bound','default/test','','<unset>',"
           "'','<unknown>','Filesystem']");
    row_is("persistentvolumes", "test4",
           "{'spec':{'claimRef':{'name':'test','namespace':'default'},"
           "'storageClassName':'my-scn','volumeAttributesClassName':'my-vacn',"
           "'accessModes':['ReadWriteOnce'],'capacity':{'storage':'10Gi'},"
           "'persistentVolumeReclaimPolicy':'Delete','volumeMode':'Block'},"
           "'status':{'phase':'Failed','reason':'Recycle failed'}}",
           "['test4','10Gi','RWO','Delete','Failed','default/test','my-scn',"
           "'my-vacn','Recycle failed','<unknown>','Block']");
    /* Defaults: Pending, no capacity reads 0; access modes in the
     * printer's order, once each; the beta annotation wins over the
     * class name; deletion: Terminating; capacities rounded up to milli. */
    row_is("persistentvolumes", "test5",
           "{'metadata':{'annotations':{'volume.beta.kubernetes.io/"
           "storage-class':'beta'},'creationTimestamp':'" AGO_5M "'},'spec':{"
           "'storageClassName':'my-scn','accessModes':['ReadWriteMany',"
           "'ReadWriteOncePod','ReadWriteOnce','ReadWriteMany']}}",
           "['test5','0','RWO,RWX,RWOP','Retain','Pending','','beta','<unset>',"
           "'','5m','Filesystem']");
    row_is("persistentvolumes", "test6",
           "{'metadata':{'deletionTimestamp':'" AGO_10S "'},'spec':{"
           "'capacity':{'storage':'1500u'}},'status':{'phase':'Released'}}",
           "['test6','2m','','Retain','Terminating','','','<unset>','',"
           "'<unknown>','Filesystem']");
}

static void test_persistentvolumeclaims(void **state)
{
    (void)state;
    row_is("persistentvolumeclaims", "test1",
           "{'spec':{'volumeName':'my-volume','volumeMode':'Filesystem'},"
           "'status':{'phase':'Bound','accessModes':['ReadOnlyMany'],"
           "'capacity':{'storage':'4Gi'}}}",
           "['test1','Bound','my-volume','4Gi','ROX','','<unset>','<unknown>',"
           "'Filesystem']");
    /* No volume yet: no capacity or access modes shown. */
    row_is("persistentvolumeclaims", "test2",
           "{'spec':{'volumeMode':'Filesystem'},'status':{'phase':'Lost',"
           "'accessModes':['ReadOnlyMany'],'capacity':{'storage':'4Gi'}}}",
           "['test2','Lost','','','','','<unset>','<unknown>','Filesystem']");
    row_is("persistentvolumeclaims", "test5",
           "{'spec':{'volumeName':'my-volume','storageClassName':'my-scn',"
           "'volumeAttributesClassName':'my-vacn'},'status':{'phase':"
           "'Pending','accessModes':['ReadWriteOnce'],'capacity':{'storage':"
           "'10Gi'}}}",
           "['test5','Pending','my-volume','10Gi','RWO','my-scn','my-vacn',"
           "'<unknown>','Filesystem']");
    row_is("persistentvolumeclaims", "test6",
           "{'metadata':{'deletionTimestamp':'" AGO_10S "','annotations':{"
           "'volume.beta.kubernetes.io/storage-class':''}},'spec':{"
           "'volumeName':'v','storageClassName':'my-scn','volumeMode':"
           "'Block'},'status':{'capacity':{'storage':'1.5Gi'}}}",
           "['test6','Terminating','v','1536Mi','','','<unset>','<unknown>',"
           "'Block']");
}

/* ------------------------------------------------------------------ */
/* Leases                                                              */
/* ------------------------------------------------------------------ */

static void test_leases(void **state)
{
    (void)state;
    row_is("leases", "lease1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'spec':{"
           "'holderIdentity':'holder1'}}",
           "['lease1','holder1','0s']");
    row_is("leases", "lease2",
           "{'metadata':{'creationTimestamp':'" AGO_5M "'},'spec':{"
           "'holderIdentity':'holder2'}}",
           "['lease2','holder2','5m']");
    row_is("leases", "lease3", "{'spec':{}}", "['lease3','','<unknown>']");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_nodes),
        cmocka_unit_test(test_namespaces_configmaps_secrets),
        cmocka_unit_test(test_serviceaccounts),
        cmocka_unit_test(test_services),
        cmocka_unit_test(test_endpoints),
        cmocka_unit_test(test_persistentvolumes),
        cmocka_unit_test(test_persistentvolumeclaims),
        cmocka_unit_test(test_leases),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
