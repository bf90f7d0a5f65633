/*
 * printers_workloads_test.c: the cells of the workload types' Table rows
 * (proto/printers_pod.c, printers_apps.c, printers_batch.c,
 * printers_autoscaling.c) at a fixed time, with the cases of kube-apiserver
 * 1.32's printers_test.go (TestPrintPod, TestPrintPodWithRestartableInit
 * Container, TestPrintDeployment, TestPrintReplicaSet, TestPrintStatefulSet,
 * TestPrintDaemonSet, TestPrintReplicationController, TestPrintJob,
 * TestPrintCronJob, TestPrintHPA) as stored v1 objects, their defaults
 * applied as the apiserver applies them (see printers_test.c), and the
 * branches those leave out.
 */
#include "test/printers_testlib.h"

/* Two containers, as printers_test.go's templates. */
#define CONTAINERS                                                             \
    "'containers':[{'name':'fake-container1','image':'fake-image1'},{'name':"  \
    "'fake-container2','image':'fake-image2'}]"
#define CONTAINER_CELLS                                                        \
    "'fake-container1,fake-container2','fake-image1,fake-image2'"

/* ------------------------------------------------------------------ */
/* Pods                                                                */
/* ------------------------------------------------------------------ */

static void test_pods(void **state)
{
    (void)state;
    row_is("pods", "p1",
           "{'metadata':{'creationTimestamp':'" AGO_5M "'},'spec':{'nodeName':"
           "'n1','containers':[{'name':'c'}]},'status':{'phase':'Running',"
           "'podIP':'10.0.0.5','podIPs':[{'ip':'10.0.0.5'}],'conditions':[{"
           "'type':'Ready','status':'True'}],'containerStatuses':[{'name':'c',"
           "'ready':true,'restartCount':2,'state':{'running':{}},'lastState':"
           "{'terminated':{'exitCode':1,'finishedAt':'" AGO_5M "'}}}]}}",
           "['p1','1/1','Running','2 (5m ago)','5m','10.0.0.5','n1','<none>',"
           "'<none>']");
    row_is("pods", "p2",
           "{'metadata':{'creationTimestamp':'" AGO_10S "'},'spec':{"
           "'containers':[{'name':'c'}],'readinessGates':[{'conditionType':"
           "'x/gate'},{'conditionType':'y'}]},'status':{'phase':'Pending',"
           "'nominatedNodeName':'n9','conditions':[{'type':'y','status':"
           "'True'}],'containerStatuses':[{'name':'c','state':{'waiting':{"
           "'reason':'CrashLoopBackOff'}}}]}}",
           "['p2','0/1','CrashLoopBackOff','0','10s','<none>','<none>','n9',"
           "'1/2']");
    /* status.podIP wins over a differing podIPs[0] (the v1 conversion);
     * podIPs alone gives the first. */
    row_is("pods", "p3",
           "{'status':{'phase':'Running','podIP':'10.0.0.9','podIPs':[{'ip':"
           "'10.0.0.5'},{'ip':'fd00::5'}]}}",
           "['p3','0/0','Running','0','<unknown>','10.0.0.9','<none>','<none>',"
           "'<none>']");
    row_is("pods", "p4", "{'status':{'podIPs':[{'ip':'fd00::5'}]}}",
           "['p4','0/0','','0','<unknown>','fd00::5','<none>','<none>',"
           "'<none>']");
}

/* READY, STATUS, RESTARTS of one pod. */
static void status_is(const char *json, const char *cells)
{
    char *want = xasprintf("['x',%s,'<unknown>','<none>','<none>','<none>',"
                           "'<none>']",
                           cells);

    row_is("pods", "x", json, want);
    free(want);
}

static void test_pod_status(void **state)
{
    (void)state;
    status_is("{'status':{'phase':'Failed','reason':'Evicted'}}",
              "'0/0','Evicted','0'");
    /* Terminating unless terminal; NodeLost reads Unknown. */
    status_is("{'metadata':{'deletionTimestamp':'" AGO_10S "'},'status':{"
              "'phase':'Running'}}",
              "'0/0','Terminating','0'");
    status_is("{'metadata':{'deletionTimestamp':'" AGO_10S "'},'status':{"
              "'phase':'Succeeded'}}",
              "'0/0','Succeeded','0'");
    status_is("{'metadata':{'deletionTimestamp':'" AGO_10S "'},'status':{"
              "'phase':'Running','reason':'NodeLost'}}",
              "'0/0','Unknown','0'");
    status_is("{'spec':{'containers':[{'name':'a'}]},'status':{'phase':"
              "'Running','containerStatuses':[{'name':'a','state':{"
              "'terminated':{'exitCode':137,'signal':9}}}]}}",
              "'0/1','Signal:9','0'");
    status_is("{'spec':{'containers':[{'name':'a'}]},'status':{'phase':"
              "'Failed','containerStatuses':[{'name':'a','state':{"
              "'terminated':{'exitCode':1,'reason':'Error'}}}]}}",
              "'0/1','Error','0'");
    /* Init containers (test9 of printers_test.go): the count, the
     * restarts and the last one's age. */
    status_is("{'spec':{'initContainers':[{'name':'i1'},{'name':'i2'}],"
              "'containers':[{'name':'a'}]},'status':{'phase':'Pending',"
              "'initContainerStatuses':[{'name':'i1','state':{'terminated':{"
              "'exitCode':0}}},{'name':'i2','restartCount':3,'state':{"
              "'running':{}},'lastState':{'terminated':{'finishedAt':'" AGO_10S
              "'}}}],'containerStatuses':[{'name':'a','state':{'waiting':{}}"
              "}]}}",
              "'0/1','Init:1/2','3 (10s ago)'");
    status_is("{'spec':{'initContainers':[{'name':'i1'}],'containers':[{"
              "'name':'a'}]},'status':{'phase':'Pending',"
              "'initContainerStatuses':[{'name':'i1','state':{'waiting':{"
              "'reason':'ImagePullBackOff'}}}]}}",
              "'0/1','Init:ImagePullBackOff','0'");
    status_is("{'spec':{'initContainers':[{'name':'i1'}],'containers':[{"
              "'name':'a'}]},'status':{'phase':'Pending',"
              "'initContainerStatuses':[{'name':'i1','state':{"
              "'terminated':{'exitCode':2}}}]}}",
              "'0/1','Init:ExitCode:2','0'");
    /* isPodInitializedConditionTrue reads the first Initialized
     * condition only. */
    status_is("{'spec':{'initContainers':[{'name':'i1'}],'containers':[{"
              "'name':'a'}]},'status':{'phase':'Pending','conditions':[{'type':"
              "'Initialized','status':'False'},{'type':'Initialized','status':"
              "'True'}],'initContainerStatuses':[{'name':'i1','state':{"
              "'running':{}}}],'containerStatuses':[{'name':'a','ready':true,"
              "'state':{'running':{}}}]}}",
              "'0/1','Init:0/1','0'");
    /* Sidecars (TestPrintPodWithRestartableInitContainer test2): started
     * ones count in READY, their restarts stay counted. */
    status_is("{'spec':{'initContainers':[{'name':'r1','restartPolicy':"
              "'Always'},{'name':'r2','restartPolicy':'Always'}],'containers':"
              "[{'name':'a'}]},'status':{'phase':'Running','conditions':[{"
              "'type':'Initialized','status':'True'}],'initContainerStatuses':"
              "[{'name':'r1','restartCount':3,'started':true,'state':{"
              "'running':{}},'lastState':{'terminated':{'finishedAt':'" AGO_10S
              "'}}},{'name':'r2','started':true,'state':{'running':{}}}],"
              "'containerStatuses':[{'name':'a','ready':true,'restartCount':4,"
              "'state':{'running':{}},'lastState':{'terminated':{"
              "'finishedAt':'" AGO_30S "'}}}]}}",
              "'1/3','Running','7 (10s ago)'");
    /* Completed but a container still running; scheduling gates. */
    status_is("{'spec':{'containers':[{'name':'a'},{'name':'b'}]},'status':{"
              "'phase':'Running','containerStatuses':[{'name':'a','ready':true,"
              "'state':{'running':{}}},{'name':'b','state':{'terminated':{"
              "'exitCode':0,'reason':'Completed'}}}]}}",
              "'1/2','NotReady','0'");
    status_is("{'status':{'phase':'Pending','conditions':[{'type':"
              "'PodScheduled','status':'False','reason':'SchedulingGated'}]}}",
              "'0/0','SchedulingGated','0'");
}

/* ------------------------------------------------------------------ */
/* Apps and replicationcontrollers                                     */
/* ------------------------------------------------------------------ */

static void test_deployments(void **state)
{
    (void)state;
    row_is("deployments.apps", "test1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'spec':{'replicas':5,"
           "'template':{'spec':{" CONTAINERS "}},'selector':{'matchLabels':{"
           "'foo':'bar'}}},'status':{'replicas':10,'updatedReplicas':2,"
           "'availableReplicas':1,'unavailableReplicas':4}}",
           "['test1','0/5',2,1,'0s'," CONTAINER_CELLS ",'foo=bar']");
    /* LabelSelectorAsSelector: requirements by key, values sorted; no
     * selector: ""; one it refuses: <invalid>; no replicas: 1. */
    row_is("deployments.apps", "d",
           "{'spec':{'replicas':3,'selector':{'matchLabels':{'app':'d'},"
           "'matchExpressions':[{'key':'tier','operator':'In','values':['web',"
           "'api']},{'key':'a-b','operator':'DoesNotExist'}]}},'status':{"
           "'readyReplicas':2,'updatedReplicas':3,'availableReplicas':2}}",
           "['d','2/3',3,2,'<unknown>','','','!a-b,app=d,tier in (api,web)']");
    row_is("deployments.apps", "e", "{'spec':{}}",
           "['e','0/1',0,0,'<unknown>','','','']");
    row_is("deployments.apps", "f",
           "{'spec':{'selector':{'matchExpressions':[{'key':'a','operator':"
           "'In','values':[]}]}}}",
           "['f','0/1',0,0,'<unknown>','','','<invalid>']");
}

static void test_replicasets(void **state)
{
    (void)state;
    row_is("replicasets.apps", "test1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'spec':{'replicas':5,"
           "'template':{'spec':{" CONTAINERS "}},'selector':{'matchLabels':{"
           "'foo':'bar'}}},'status':{'replicas':5,'readyReplicas':2}}",
           "['test1',5,5,2,'0s'," CONTAINER_CELLS ",'foo=bar']");
    /* FormatLabelSelector: <none> for none, <error> for one refused. */
    row_is("replicasets.apps", "replicaset2",
           "{'spec':{'replicas':4},'status':{'replicas':3,'readyReplicas':1}}",
           "['replicaset2',4,3,1,'<unknown>','','','<none>']");
    row_is("replicasets.apps", "defaulted",
           "{'spec':{'selector':{'matchLabels':{'a':'b'},'matchExpressions':[{"
           "'key':'x','operator':'Exists'},{'key':'b','operator':'NotIn',"
           "'values':['2','1','2']}]}}}",
           "['defaulted',1,0,0,'<unknown>','','','a=b,b notin (1,2,2),x']");
    row_is("replicasets.apps", "bad",
           "{'spec':{'selector':{'matchLabels':{'a b':'c'}}}}",
           "['bad',1,0,0,'<unknown>','','','<error>']");
    row_is("replicasets.apps", "badop",
           "{'spec':{'selector':{'matchExpressions':[{'key':'a','operator':"
           "'Gt','values':['1']}]}}}",
           "['badop',1,0,0,'<unknown>','','','<error>']");
}

static void test_statefulsets_daemonsets(void **state)
{
    (void)state;
    row_is("statefulsets.apps", "test1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'spec':{'replicas':5,"
           "'template':{'spec':{" CONTAINERS "}}},'status':{'replicas':5,"
           "'readyReplicas':2}}",
           "['test1','2/5','0s'," CONTAINER_CELLS "]");
    row_is("statefulsets.apps", "one", "{'spec':{}}",
           "['one','0/1','<unknown>','','']");
    row_is("daemonsets.apps", "test1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'spec':{'template':{"
           "'spec':{" CONTAINERS "}},'selector':{'matchLabels':{'foo':'bar'}}},"
           "'status':{'currentNumberScheduled':2,'desiredNumberScheduled':3,"
           "'numberReady':1,'updatedNumberScheduled':2,'numberAvailable':0}}",
           "['test1',3,2,1,2,0,'<none>','0s'," CONTAINER_CELLS ",'foo=bar']");
    row_is("daemonsets.apps", "daemonset2",
           "{'spec':{'template':{'spec':{'nodeSelector':{'disk':'ssd',"
           "'kubernetes.io/os':'linux'}}}},'status':{'currentNumberScheduled':"
           "4,'desiredNumberScheduled':2,'numberReady':9,"
           "'updatedNumberScheduled':3,'numberAvailable':3}}",
           "['daemonset2',2,4,9,3,3,'disk=ssd,kubernetes.io/os=linux',"
           "'<unknown>','','','<none>']");
}

static void test_replicationcontrollers(void **state)
{
    (void)state;
    row_is("replicationcontrollers", "rc1",
           "{'spec':{'replicas':0,'selector':{'a':'b'},'template':{'metadata':"
           "{'labels':{'a':'b'}},'spec':{'containers':[{'name':'test','image':"
           "'test_image'}]}}}}",
           "['rc1',0,0,0,'<unknown>','test','test_image','a=b']");
    row_is("replicationcontrollers", "rc2",
           "{'spec':{'replicas':5,'selector':{'a':'b'}},'status':{'replicas':3,"
           "'readyReplicas':1}}",
           "['rc2',5,3,1,'<unknown>','','','a=b']");
    /* The v1 defaults: 1 replica, the template's labels as selector. */
    row_is("replicationcontrollers", "rc3",
           "{'spec':{'template':{'metadata':{'labels':{'app':'x','tier':'y'}}}"
           "}}",
           "['rc3',1,0,0,'<unknown>','','','app=x,tier=y']");
    row_is("replicationcontrollers", "rc4", "{'spec':{'replicas':0}}",
           "['rc4',0,0,0,'<unknown>','','','<none>']");
}

/* ------------------------------------------------------------------ */
/* Batch                                                               */
/* ------------------------------------------------------------------ */

static void test_jobs(void **state)
{
    (void)state;
    row_is("jobs.batch", "job1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'spec':{"
           "'completions':2,'template':{'spec':{'containers':[{'name':"
           "'fake-job-container1','image':'fake-job-image1'},{'name':"
           "'fake-job-container2','image':'fake-job-image2'}]}},'selector':{"
           "'matchLabels':{'job-label':'job-label-value'}}},'status':{"
           "'succeeded':1}}",
           "['job1','Running','1/2','','0s','fake-job-container1,"
           "fake-job-container2','fake-job-image1,fake-job-image2',"
           "'job-label=job-label-value']");
    row_is("jobs.batch", "job2",
           "{'metadata':{'creationTimestamp':'" AGO_10Y "'},'spec':{}}",
           "['job2','Running','0/1','','10y','','','<none>']");
    /* DURATION: completion - start, or now - start while running. */
    row_is("jobs.batch", "job3",
           "{'spec':{},'status':{'startTime':'" IN_1M "','completionTime':'"
           "" IN_31M "'}}",
           "['job3','Running','0/1','30m','<unknown>','','','<none>']");
    row_is("jobs.batch", "job4",
           "{'spec':{'parallelism':3},'status':{'startTime':'" AGO_20M "'}}",
           "['job4','Running','0/1 of 3','20m','<unknown>','','','<none>']");
    /* STATUS by precedence; a condition counts by its first entry. */
    row_is("jobs.batch", "job5",
           "{'status':{'conditions':[{'type':'Complete','status':'True'}]}}",
           "['job5','Complete','0/1','','<unknown>','','','<none>']");
    row_is("jobs.batch", "job6",
           "{'metadata':{'deletionTimestamp':'" AGO_10S "'},'status':{"
           "'conditions':[{'type':'Suspended','status':'True'},{'type':"
           "'Failed','status':'True'}]}}",
           "['job6','Failed','0/1','','<unknown>','','','<none>']");
    row_is("jobs.batch", "job7",
           "{'status':{'conditions':[{'type':'Suspended','status':'True'}]}}",
           "['job7','Suspended','0/1','','<unknown>','','','<none>']");
    row_is("jobs.batch", "job8",
           "{'status':{'conditions':[{'type':'FailureTarget','status':'True'},"
           "{'type':'Complete','status':'False'},{'type':'Complete',"
           "'status':'True'}]}}",
           "['job8','FailureTarget','0/1','','<unknown>','','','<none>']");
    row_is("jobs.batch", "job9",
           "{'metadata':{'deletionTimestamp':'" AGO_10S "'},'spec':{"
           "'completions':1,'parallelism':1}}",
           "['job9','Terminating','0/1','','<unknown>','','','<none>']");
}

static void test_cronjobs(void **state)
{
    (void)state;
    row_is("cronjobs.batch", "cronjob1",
           "{'metadata':{'creationTimestamp':'" IN_1S "'},'spec':{'schedule':"
           "'0/5 * * * ?','suspend':false,'jobTemplate':{'spec':{"
           "'completions':2,'template':{'spec':{'containers':[{'name':"
           "'fake-job-container1','image':'fake-job-image1'},{'name':"
           "'fake-job-container2','image':'fake-job-image2'}]}},'selector':{"
           "'matchLabels':{'a':'b'}}}}},'status':{'lastScheduleTime':'" IN_1S
           "'}}",
           "['cronjob1','0/5 * * * ?','<none>','False',0,'0s','0s',"
           "'fake-job-container1,fake-job-container2','fake-job-image1,"
           "fake-job-image2','a=b']");
    row_is("cronjobs.batch", "cronjob2",
           "{'metadata':{'creationTimestamp':'" AGO_5M "'},'spec':{'schedule':"
           "'0/5 * * * ?','timeZone':'LOCAL','suspend':true},'status':{"
           "'lastScheduleTime':'" AGO_30S "','active':[{'name':'j1'},{'name':"
           "'j2'}]}}",
           "['cronjob2','0/5 * * * ?','LOCAL','True',2,'30s','5m','','',"
           "'<none>']");
    /* No suspend: False (the default); no last schedule: <none>. */
    row_is("cronjobs.batch", "cronjob3",
           "{'metadata':{'creationTimestamp':'" AGO_5M "'},'spec':{'schedule':"
           "'4/5 1 1 1 ?'},'status':{}}",
           "['cronjob3','4/5 1 1 1 ?','<none>','False',0,'<none>','5m','','',"
           "'<none>']");
}

/* ------------------------------------------------------------------ */
/* HorizontalPodAutoscalers                                            */
/* ------------------------------------------------------------------ */

/* An autoscaling/v2 HPA of some-rc with minReplicas 2, maxReplicas 10, 4
 * current replicas, the given metrics and current metrics: its TARGETS. */
static void targets_are(const char *metrics, const char *current,
                        const char *targets)
{
    char *json = xasprintf(
        "{'spec':{'scaleTargetRef':{'kind':'ReplicationController','name':"
        "'some-rc'},'minReplicas':2,'maxReplicas':10,'metrics':[%s]},"
        "'status':{'currentReplicas':4,'desiredReplicas':5,"
        "'currentMetrics':[%s]}}",
        metrics, current);
    char *want = xasprintf("['some-hpa','ReplicationController/some-rc','%s',"
                           "'2',10,4,'<unknown>']",
                           targets);

    row_is("horizontalpodautoscalers.autoscaling", "some-hpa", json, want);
    free(json);
    free(want);
}

#define EXTERNAL(target)                                                       \
    "{'type':'External','external':{'metric':{'name':'m','selector':{"         \
    "'matchLabels':{'label':'value'}}},'target':" target "}}"
#define EXTERNAL_NOW(current)                                                  \
    "{'type':'External','external':{'metric':{'name':'m'},'current':" current  \
    "}}"
/* A Resource or ContainerResource metric (type, member) of cpu. */
#define RESOURCE(type, member, target)                                         \
    "{'type':'" type "','" member "':{'name':'cpu','container':'app',"         \
    "'target':" target "}}"
#define RESOURCE_NOW(type, member, current)                                    \
    "{'type':'" type "','" member "':{'name':'cpu','current':" current "}}"

static void test_hpas(void **state)
{
    (void)state;
    /* No minReplicas and no metrics: the v2 defaults, 1 and 80% CPU. */
    row_is("horizontalpodautoscalers.autoscaling", "some-hpa",
           "{'spec':{'scaleTargetRef':{'kind':'ReplicationController','name':"
           "'some-rc'},'maxReplicas':10},'status':{'currentReplicas':4}}",
           "['some-hpa','ReplicationController/some-rc','cpu: <unknown>/80%',"
           "'1',10,4,'<unknown>']");
    targets_are("",
                "{'type':'Resource','resource':{'name':'cpu','current':{"
                "'averageUtilization':30}}}",
                "cpu: 30%/80%");
    targets_are(EXTERNAL("{'type':'AverageValue','averageValue':'100m'}"), "",
                "<unknown>/100m (avg)");
    targets_are(EXTERNAL("{'type':'AverageValue','averageValue':'100m'}"),
                EXTERNAL_NOW("{'averageValue':'50m'}"), "50m/100m (avg)");
    targets_are(EXTERNAL("{'type':'Value','value':'100m'}"), "",
                "<unknown>/100m");
    targets_are(EXTERNAL("{'type':'Value','value':'100m'}"),
                EXTERNAL_NOW("{'value':'50m'}"), "50m/100m");
    targets_are("{'type':'Pods','pods':{'metric':{'name':'p'},'target':{"
                "'type':'AverageValue','averageValue':'100m'}}}",
                "", "<unknown>/100m");
    targets_are("{'type':'Object','object':{'describedObject':{'kind':"
                "'Service','name':'s'},'metric':{'name':'o'},'target':{'type':"
                "'Value','value':'0.1'}}}",
                "{'type':'Object','object':{'metric':{'name':'o'},'current':{"
                "'value':'50m'}}}",
                "50m/100m");
    targets_are(RESOURCE("Resource", "resource",
                         "{'type':'AverageValue','averageValue':"
                         "'100m'}"),
                "", "cpu: <unknown>/100m");
    targets_are(RESOURCE("ContainerResource", "containerResource",
                         "{'type':'AverageValue',"
                         "'averageValue':'100m'}"),
                RESOURCE_NOW("ContainerResource", "containerResource",
                             "{'averageValue':'50m'}"),
                "cpu: 50m/100m");
    targets_are(RESOURCE("ContainerResource", "containerResource",
                         "{'type':'Utilization',"
                         "'averageUtilization':80}"),
                "", "cpu: <unknown>/80%");
    targets_are(RESOURCE("Resource", "resource",
                         "{'type':'Utilization',"
                         "'averageUtilization':80}"),
                RESOURCE_NOW("Resource", "resource",
                             "{'averageUtilization':50,"
                             "'averageValue':'40m'}"),
                "cpu: 50%/80%");
    /* Two shown, then "+ N more..."; a status of another source or a
     * missing one: <unknown>; an unknown type. */
    targets_are("{'type':'Pods','pods':{'metric':{'name':'p'},'target':{"
                "'type':'AverageValue','averageValue':'100m'}}},"
                "{'type':'Resource','resource':{'name':'cpu','target':{'type':"
                "'Utilization','averageUtilization':80}}},"
                "{'type':'Pods','pods':{'metric':{'name':'q'},'target':{"
                "'type':'AverageValue','averageValue':'400m'}}}",
                "{'type':'Pods','pods':{'metric':{'name':'p'},'current':{"
                "'averageValue':'50m'}}},{'type':'Resource','resource':{"
                "'name':'cpu','current':{'averageUtilization':50}}}",
                "50m/100m, cpu: 50%/80% + 1 more...");
    targets_are("{'type':'Resource','resource':{'name':'memory','target':{"
                "'type':'Utilization'}}},{'type':'Magic'}",
                "{'type':'Pods','pods':{'current':{'averageValue':'1'}}}",
                "memory: <unknown>/<auto>, <unknown type>");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pods),
        cmocka_unit_test(test_pod_status),
        cmocka_unit_test(test_deployments),
        cmocka_unit_test(test_replicasets),
        cmocka_unit_test(test_statefulsets_daemonsets),
        cmocka_unit_test(test_replicationcontrollers),
        cmocka_unit_test(test_jobs),
        cmocka_unit_test(test_cronjobs),
        cmocka_unit_test(test_hpas),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
